/**
 * The MCP client side against a misbehaving real server (test/helpers/fault-server.ts, an SDK
 * McpServer in a child process): crashes mid-call and restarts, timeouts and aborts that send
 * notifications/cancelled, list_changed, pagination, progress, error and media results.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import type { ToolRegistry } from "../../src/mcp/registry/registry.ts";
import { callTool, faultServerEntry, isAlive, logLines, resultText, tempDir } from "../helpers/mcp-servers.ts";

const dir = tempDir("mcp-gw-fault-");
const logFile = join(dir.path, "fault.log");
const timeoutLogFile = join(dir.path, "fault-timeout.log");
const FILLERS = 12;
let pool: McpPool;

beforeAll(async () => {
  const config = resolveConfig(
    {
      mcpServers: {
        fault: faultServerEntry({ log: logFile, pageSize: 4, fillers: FILLERS }),
        // Its own server (and log) with a short per-server timeout; `prefix: ""` keeps its names.
        quick: faultServerEntry({ log: timeoutLogFile, fillers: 0 }, { timeoutMs: 750, prefix: "", tools: { allow: ["slow", "echo"] } }),
      },
    },
    {},
  );
  pool = new McpPool(config.servers, { logger: silentLogger() });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
  dir.remove();
});

function nextRegistry(): Promise<ToolRegistry> {
  return new Promise((resolve) => {
    const off = pool.onChange((registry) => {
      off();
      resolve(registry);
    });
  });
}

describe("fault server", () => {
  it("keeps the names of a server with prefix \"\" and maps them back exactly", () => {
    const quick = pool.registry.list().filter((t) => t.server === "quick");
    expect(quick.map((t) => t.name).sort()).toEqual(["echo", "slow"]);
    expect(pool.registry.get("echo")).toMatchObject({ server: "quick", tool: { name: "echo" } });
    expect(pool.registry.get("fault__echo")).toMatchObject({ server: "fault", tool: { name: "echo" } });
    expect(pool.emptyPrefixCollisions()).toEqual([]);
  });

  it("follows tools/list pagination", () => {
    expect(pool.states().find((s) => s.name === "fault")).toMatchObject({ status: "ready", transport: "stdio" });
    const fault = pool.registry.list().filter((t) => t.server === "fault").map((t) => t.name);
    const expected = ["echo", "crash", "slow", "add_tool", "fail", "image", "media", "progress", "structured"].map((n) => `fault__${n}`);
    for (let i = 0; i < FILLERS; i++) expected.push(`fault__filler_${String(i).padStart(2, "0")}`);
    expect(fault.sort()).toEqual(expected.sort());
    // Several pages were requested, each with the cursor of the one before.
    const lists = logLines(logFile).filter((l) => l.startsWith("list "));
    expect(lists.slice(0, 6)).toEqual(["list -", "list 4", "list 8", "list 12", "list 16", "list 20"]);
  });

  it("validates structuredContent against the output schema of a tool on any page, not only the last one", async () => {
    // The SDK client validates structuredContent against the outputSchemas it knows from
    // tools/list. `structured` is on page 3 of 6: a per-page cache would have forgotten it.
    const result = await callTool(pool.registry, "fault__structured", { city: "Oslo", wrong: true });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/structured content|output schema/i);
  });

  it("passes an error result (isError) through", async () => {
    const result = await callTool(pool.registry, "fault__fail", {});
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "it failed on purpose" }] });
  });

  it("converts image, audio, embedded resources and resource links", async () => {
    const image = await callTool(pool.registry, "fault__image", {});
    expect(image.isError).toBe(false);
    expect(image.content).toEqual([{ type: "image", source: { kind: "base64", mediaType: "image/png", data: expect.any(String) } }]);

    const media = await callTool(pool.registry, "fault__media", {});
    expect(media.isError).toBe(false);
    expect(media.content).toEqual([
      { type: "audio", mediaType: "audio/wav", data: Buffer.from("RIFF0000WAVEfmt ").toString("base64") },
      { type: "resource", uri: "file:///notes.txt", mimeType: "text/plain", text: "some notes" },
      { type: "resource", uri: "file:///blob.bin", mimeType: "application/octet-stream", blob: Buffer.from("RIFF0000WAVEfmt ").toString("base64") },
      { type: "resource", uri: "file:///big.csv", link: true, name: "big.csv", mimeType: "text/csv", description: "a big file" },
    ]);
  });

  it("passes structuredContent through", async () => {
    const result = await callTool(pool.registry, "fault__structured", { city: "Oslo" });
    expect(result).toMatchObject({ isError: false, structured: { city: "Oslo", temperature: 21.5 } });
  });

  it("surfaces every progress notification through onProgress, before the result", async () => {
    const progress: unknown[] = [];
    const result = await callTool(pool.registry, "fault__progress", { steps: 4 }, { onProgress: (p) => progress.push(p) });
    expect(resultText(result)).toBe("done in 4 steps");
    expect(progress).toEqual([1, 2, 3, 4].map((i) => ({ progress: i, total: 4, message: `step ${i}` })));
  });

  it("validates arguments before calling: an invalid call never reaches the server", async () => {
    const before = logLines(logFile).filter((l) => l.startsWith("call echo")).length;
    const result = await callTool(pool.registry, "fault__echo", { text: 42, extra: true });
    expect(result.isError).toBe(true);
    expect(resultText(result)).toContain("arguments.text must be string");
    const ok = await callTool(pool.registry, "fault__echo", { text: "fine" });
    expect(resultText(ok)).toBe("echo: fine");
    // Only the valid call reached the server.
    expect(logLines(logFile).filter((l) => l.startsWith("call echo"))).toHaveLength(before + 1);
  });

  it("refreshes the server's tools on notifications/tools/list_changed", async () => {
    expect(pool.registry.has("fault__fresh_tool")).toBe(false);
    const versionBefore = pool.registry.version;
    const changed = nextRegistry();
    const added = await callTool(pool.registry, "fault__add_tool", { name: "fresh_tool" });
    expect(resultText(added)).toBe("added fresh_tool");
    const registry = await changed;
    expect(registry.version).toBeGreaterThan(versionBefore);
    expect(registry.has("fault__fresh_tool")).toBe(true);
    expect(pool.registry.has("fault__fresh_tool")).toBe(true);
    // Still every other tool (the refresh followed pagination again).
    expect(registry.list().filter((t) => t.server === "fault")).toHaveLength(9 + FILLERS + 1);
    const result = await callTool(pool.registry, "fault__fresh_tool", {});
    expect(resultText(result)).toBe("fresh_tool works");
  });

  it("ends a call that outlives the server's timeout with an error result and cancels it on the server", async () => {
    const result = await callTool(pool.registry, "slow", {});
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/did not answer in time/);
    // The server saw notifications/cancelled for that request.
    await vi.waitFor(() => expect(logLines(timeoutLogFile).some((l) => l.startsWith("cancelled "))).toBe(true));
    const started = logLines(timeoutLogFile).find((l) => l.startsWith("slow-started "))!.split(" ")[1];
    expect(logLines(timeoutLogFile).find((l) => l.startsWith("cancelled "))).toContain(`cancelled ${started} `);
    // The server is still usable.
    expect(resultText(await callTool(pool.registry, "echo", { text: "after timeout" }))).toBe("echo: after timeout");
  });

  it("cancels a call through its AbortSignal: an error result, and notifications/cancelled sent", async () => {
    const controller = new AbortController();
    const startedBefore = logLines(logFile).filter((l) => l.startsWith("slow-started ")).length;
    // fault's timeout is the default 60 s: only the abort can end this call within the test.
    const pending = callTool(pool.registry, "fault__slow", {}, { signal: controller.signal });
    await vi.waitFor(() => expect(logLines(logFile).filter((l) => l.startsWith("slow-started ")).length).toBe(startedBefore + 1));
    const requestId = logLines(logFile).filter((l) => l.startsWith("slow-started ")).at(-1)!.split(" ")[1];
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(resultText(result)).toMatch(/cancel/i);
    expect(resultText(result)).not.toMatch(/did not answer in time/);
    await vi.waitFor(() => expect(logLines(logFile).some((l) => l.startsWith(`cancelled ${requestId} `))).toBe(true));
    // An already-aborted signal makes no call at all.
    const callsBefore = logLines(logFile).filter((l) => l.startsWith("call ")).length;
    const again = await callTool(pool.registry, "fault__echo", { text: "x" }, { signal: controller.signal });
    expect(again.isError).toBe(true);
    expect(logLines(logFile).filter((l) => l.startsWith("call ")).length).toBe(callsBefore);
  });

  it("turns a crash mid-call into an error result, restarts the server, and the next call works", async () => {
    const connection = pool.connection("fault")!;
    const pidBefore = connection.pid!;
    expect(isAlive(pidBefore)).toBe(true);
    const restartsBefore = connection.status.restarts;

    const crashed = await callTool(pool.registry, "fault__crash", {});
    expect(crashed.isError).toBe(true);
    expect(resultText(crashed)).toMatch(/closed/i);
    await vi.waitFor(() => expect(isAlive(pidBefore)).toBe(false));

    const next = await callTool(pool.registry, "fault__echo", { text: "back again" });
    expect(next.isError).toBe(false);
    expect(resultText(next)).toBe("echo: back again");
    expect(connection.status).toMatchObject({ status: "ready", restarts: restartsBefore + 1 });
    expect(connection.pid).not.toBe(pidBefore);
    // The tools came back with the restart (the registry was rebuilt).
    expect(pool.registry.has("fault__crash")).toBe(true);
  });
});
