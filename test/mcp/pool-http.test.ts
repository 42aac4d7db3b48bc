/**
 * Remote MCP servers: server-everything over Streamable HTTP, and in its legacy SSE mode
 * reached through an `http` config (Streamable HTTP first, then the SSE fallback) and through
 * an explicit `sse` config. The servers run as loopback-pinned child processes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { Backoff } from "../../src/mcp/client/backoff.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import { callTool, resultText, startEverythingHttp, type HttpServerProcess } from "../helpers/mcp-servers.ts";

let streamable: HttpServerProcess;
let legacy: HttpServerProcess;
let pool: McpPool;

beforeAll(async () => {
  [streamable, legacy] = await Promise.all([startEverythingHttp("streamableHttp"), startEverythingHttp("sse")]);
  const config = resolveConfig(
    {
      mcpServers: {
        remote: { type: "http", url: `http://127.0.0.1:${streamable.port}/mcp`, tools: { deny: ["trigger-*", "simulate-*"] } },
        // Only speaks legacy SSE: configured as http, reached through the fallback.
        old: { type: "http", url: `http://127.0.0.1:${legacy.port}/sse`, prefix: "old_" },
        // The same legacy server, configured as sse.
        oldsse: { type: "sse", url: `http://127.0.0.1:${legacy.port}/sse` },
        // Nothing listens there: fails, without blocking the others.
        nowhere: { type: "http", url: `http://127.0.0.1:1/mcp` },
        // A wrong path on a live server: 404 to Streamable HTTP, then to the SSE fallback.
        wrongpath: { type: "http", url: `http://127.0.0.1:${streamable.port}/no-such-path` },
      },
    },
    {},
  );
  // A long backoff: the unreachable server stays "failed" (no retry in flight) while the tests look.
  pool = new McpPool(config.servers, { logger: silentLogger(), backoff: () => new Backoff(60_000, 60_000) });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
  await Promise.all([streamable?.stop(), legacy?.stop()]);
});

describe("remote MCP servers", () => {
  it("connects server-everything over Streamable HTTP", async () => {
    expect(pool.states().find((s) => s.name === "remote")).toMatchObject({ status: "ready", transport: "http" });
    const names = pool.registry.list().filter((t) => t.server === "remote").map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["remote__echo", "remote__get-sum", "remote__get-tiny-image"]));
    expect(names.some((n) => n.startsWith("remote__trigger-"))).toBe(false);

    const echo = await callTool(pool.registry, "remote__echo", { message: "over http" });
    expect(resultText(echo)).toBe("Echo: over http");
    const sum = await callTool(pool.registry, "remote__get-sum", { a: 1.5, b: 2 });
    expect(resultText(sum)).toContain("3.5");
    const image = await callTool(pool.registry, "remote__get-tiny-image", {});
    expect(image.content.some((c) => c.type === "image" && c.source.kind === "base64" && c.source.mediaType === "image/png")).toBe(true);
    const structured = await callTool(pool.registry, "remote__get-structured-content", { location: "New York" });
    expect(structured.structured).toEqual({ temperature: 33, conditions: "Cloudy", humidity: 82 });
  });

  it("surfaces progress over Streamable HTTP", async () => {
    const progress: number[] = [];
    // Denied for the model, so called through the connection directly.
    const result = await pool.connection("remote")!.callTool("trigger-long-running-operation", { duration: 0.1, steps: 2 }, {
      onProgress: (p) => progress.push(p.progress),
    });
    expect(result.isError ?? false).toBe(false);
    expect(progress).toEqual([1, 2]);
  });

  it("falls back to SSE for an http-configured server that only speaks legacy SSE", async () => {
    expect(pool.states().find((s) => s.name === "old")).toMatchObject({ status: "ready", transport: "sse" });
    expect(pool.registry.has("old_echo")).toBe(true);
    const echo = await callTool(pool.registry, "old_echo", { message: "via the fallback" });
    expect(echo.isError).toBe(false);
    expect(resultText(echo)).toBe("Echo: via the fallback");
    const sum = await callTool(pool.registry, "old_get-sum", { a: 20, b: 22 });
    expect(resultText(sum)).toContain("42");
  });

  it("connects an sse-configured server directly", async () => {
    expect(pool.states().find((s) => s.name === "oldsse")).toMatchObject({ status: "ready", transport: "sse" });
    const echo = await callTool(pool.registry, "oldsse__echo", { message: "legacy" });
    expect(resultText(echo)).toBe("Echo: legacy");
  });

  it("a wrong URL is reported with the Streamable HTTP answer (the 404), not only the SSE fallback's", () => {
    const wrong = pool.states().find((s) => s.name === "wrongpath");
    expect(wrong).toMatchObject({ status: "failed", toolCount: 0 });
    expect(wrong?.error).toMatch(/^Streamable HTTP: .*404.*; then the legacy SSE fallback: /);
  });

  it("reports an unreachable server without blocking the others", () => {
    const nowhere = pool.states().find((s) => s.name === "nowhere");
    expect(nowhere).toMatchObject({ status: "failed", toolCount: 0 });
    expect(nowhere?.error).toBeTruthy();
    expect(pool.registry.list().some((t) => t.server === "nowhere")).toBe(false);
  });
});
