/**
 * The tool registry end to end with the real reference servers from npm over stdio:
 * server-everything, server-filesystem (on a temporary folder) and server-memory.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import { TOOL_NAME_PATTERN } from "../../src/mcp/names.ts";
import { callTool, resultText, serverBin, tempDir } from "../helpers/mcp-servers.ts";

const files = tempDir("mcp-gw-fs-");
const memory = tempDir("mcp-gw-memory-");
let pool: McpPool;

beforeAll(async () => {
  writeFileSync(join(files.path, "hello.txt"), "hello from the gateway test\nsecond line\n");
  const config = resolveConfig(
    {
      mcpServers: {
        everything: { command: process.execPath, args: [serverBin("everything")] },
        // The same server twice, narrowed by filters: allow with a wildcard, and deny.
        narrow: {
          command: process.execPath,
          args: [serverBin("everything")],
          prefix: "ev_",
          tools: { allow: ["get-*", "echo"], deny: ["get-env", "*image*"] },
        },
        files: { command: process.execPath, args: [serverBin("filesystem"), files.path], tools: { deny: ["write_file", "edit_file", "move_file"] } },
        memory: { command: process.execPath, args: [serverBin("memory")], env: { MEMORY_FILE_PATH: join(memory.path, "memory.jsonl") } },
        off: { command: process.execPath, args: [serverBin("everything")], disabled: true },
      },
    },
    {},
  );
  pool = new McpPool(config.servers, { logger: silentLogger() });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
  files.remove();
  memory.remove();
});

function names(server: string): string[] {
  return pool.registry
    .list()
    .filter((t) => t.server === server)
    .map((t) => t.name)
    .sort();
}

describe("real MCP servers over stdio", () => {
  it("connects every enabled server and lists their tools under namespaced names", () => {
    const states = Object.fromEntries(pool.states().map((s) => [s.name, s]));
    expect(states.everything).toMatchObject({ status: "ready", transport: "stdio" });
    expect(states.narrow).toMatchObject({ status: "ready" });
    expect(states.files).toMatchObject({ status: "ready" });
    expect(states.memory).toMatchObject({ status: "ready" });
    expect(states.off).toMatchObject({ status: "disabled", toolCount: 0 });
    expect(pool.serverNames()).not.toContain("off");

    expect(names("everything")).toEqual(
      expect.arrayContaining(["everything__echo", "everything__get-sum", "everything__get-tiny-image", "everything__get-structured-content"]),
    );
    expect(names("files")).toEqual(expect.arrayContaining(["files__read_text_file", "files__list_directory", "files__list_allowed_directories"]));
    expect(names("memory")).toEqual(
      expect.arrayContaining(["memory__create_entities", "memory__read_graph", "memory__search_nodes", "memory__open_nodes"]),
    );
    for (const tool of pool.registry.list()) expect(tool.name).toMatch(TOOL_NAME_PATTERN);
    // Nothing from the disabled server.
    expect(pool.registry.list().some((t) => t.server === "off")).toBe(false);
  });

  it("maps every exposed name back exactly to its server and original tool name", () => {
    const byServer = new Map(pool.states().map((s) => [s.name, s]));
    for (const tool of pool.registry.list()) {
      const config = pool.connection(tool.server)!.config;
      expect(tool.name).toBe(`${config.prefix}${tool.tool.name}`);
      expect(pool.connection(tool.server)!.tools.map((t) => t.name)).toContain(tool.tool.name);
      expect(byServer.get(tool.server)?.status).toBe("ready");
    }
    expect(pool.registry.get("everything__get-sum")).toMatchObject({ server: "everything", tool: { name: "get-sum" } });
    expect(pool.registry.get("ev_get-sum")).toMatchObject({ server: "narrow", tool: { name: "get-sum" } });
  });

  it("leaves out a tool that must be called as a task (taskSupport: required): the gateway cannot run tasks", () => {
    const upstream = pool.connection("everything")!.tools.find((t) => t.name === "simulate-research-query");
    expect(upstream?.execution?.taskSupport).toBe("required");
    expect(names("everything")).not.toContain("everything__simulate-research-query");
    expect(pool.registry.get("everything__simulate-research-query")).toBeUndefined();
  });

  it("applies allow/deny filters (with wildcards) and a custom prefix", () => {
    const narrow = names("narrow");
    expect(narrow).toContain("ev_echo");
    expect(narrow).toContain("ev_get-sum");
    expect(narrow).toContain("ev_get-structured-content");
    expect(narrow).not.toContain("ev_get-env"); // denied by name
    expect(narrow).not.toContain("ev_get-tiny-image"); // denied by wildcard
    expect(narrow).not.toContain("ev_trigger-long-running-operation"); // not allowed
    for (const name of narrow) expect(name === "ev_echo" || name.startsWith("ev_get-")).toBe(true);
    // The server itself still has the filtered tools; only the registry hides them.
    expect(pool.connection("narrow")!.tools.map((t) => t.name)).toContain("get-env");

    const files = names("files");
    expect(files).not.toContain("files__write_file");
    expect(files).not.toContain("files__edit_file");
    expect(files).toContain("files__read_text_file");
    // A filtered-out tool cannot be called.
    return callTool(pool.registry, "files__write_file", { path: "x", content: "y" }).then((result) => {
      expect(result.isError).toBe(true);
      expect(resultText(result)).toContain('no tool named "files__write_file"');
    });
  });

  it("calls everything's echo and get-sum", async () => {
    const echo = await callTool(pool.registry, "everything__echo", { message: "hi there" });
    expect(echo).toMatchObject({ type: "tool_result", name: "everything__echo", isError: false });
    expect(resultText(echo)).toBe("Echo: hi there");

    const sum = await callTool(pool.registry, "ev_get-sum", { a: 2, b: 40 });
    expect(sum.isError).toBe(false);
    expect(resultText(sum)).toContain("42");
  });

  it("converts everything's tiny image to an image block", async () => {
    const result = await callTool(pool.registry, "everything__get-tiny-image", {});
    expect(result.isError).toBe(false);
    const image = result.content.find((c) => c.type === "image");
    expect(image).toMatchObject({ type: "image", source: { kind: "base64", mediaType: "image/png" } });
    const data = image?.type === "image" && image.source.kind === "base64" ? image.source.data : "";
    // A real PNG.
    expect(Buffer.from(data, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(result.content.filter((c) => c.type === "text").length).toBeGreaterThan(0);
  });

  it("passes structuredContent through for a tool with an outputSchema", async () => {
    const entry = pool.registry.get("everything__get-structured-content");
    expect(entry?.tool.outputSchema).toBeDefined();
    const result = await callTool(pool.registry, "everything__get-structured-content", { location: "Chicago" });
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
    expect(JSON.parse(resultText(result))).toEqual(result.structured);
  });

  it("converts resource links and embedded resources", async () => {
    const links = await callTool(pool.registry, "everything__get-resource-links", { count: 2 });
    expect(links.isError).toBe(false);
    const linkBlocks = links.content.filter((c) => c.type === "resource");
    expect(linkBlocks).toHaveLength(2);
    for (const block of linkBlocks) expect(block).toMatchObject({ type: "resource", link: true, uri: expect.any(String), name: expect.any(String) });

    const reference = await callTool(pool.registry, "everything__get-resource-reference", { resourceType: "Text", resourceId: 1 });
    expect(reference.isError).toBe(false);
    const embedded = reference.content.find((c) => c.type === "resource");
    expect(embedded).toMatchObject({ type: "resource", uri: expect.any(String), text: expect.any(String) });
    expect(embedded && "link" in embedded ? embedded.link : undefined).toBeUndefined();
  });

  it("reads a file through server-filesystem", async () => {
    const result = await callTool(pool.registry, "files__read_text_file", { path: join(files.path, "hello.txt") });
    expect(result.isError).toBe(false);
    expect(resultText(result)).toContain("hello from the gateway test");

    const outside = await callTool(pool.registry, "files__read_text_file", { path: "/etc/hostname" });
    expect(outside.isError).toBe(true);
    expect(resultText(outside)).toMatch(/denied|outside|not allowed/i);
  });

  it("creates and reads back entities through server-memory", async () => {
    const created = await callTool(pool.registry, "memory__create_entities", {
      entities: [{ name: "Gateway", entityType: "project", observations: ["speaks MCP"] }],
    });
    expect(created.isError).toBe(false);
    expect(resultText(created)).toContain("Gateway");

    const found = await callTool(pool.registry, "memory__open_nodes", { names: ["Gateway"] });
    expect(found.isError).toBe(false);
    expect(resultText(found)).toContain("speaks MCP");
    expect(found.structured).toMatchObject({ entities: [{ name: "Gateway", entityType: "project" }] });
  });

  it("rejects invalid arguments against the original inputSchema without calling the server", async () => {
    const connection = pool.connection("everything")!;
    const spy = vi.spyOn(connection, "callTool");
    try {
      const wrongType = await callTool(pool.registry, "everything__get-sum", { a: "two", b: 3 });
      expect(wrongType.isError).toBe(true);
      expect(resultText(wrongType)).toContain("invalid arguments for everything__get-sum");
      expect(resultText(wrongType)).toContain("arguments.a must be number");
      expect(resultText(wrongType)).toMatch(/Fix the arguments/);

      const missing = await callTool(pool.registry, "everything__echo", {});
      expect(missing.isError).toBe(true);
      expect(resultText(missing)).toContain("must have required property 'message'");

      const badEnum = await callTool(pool.registry, "everything__get-structured-content", { location: "Paris" });
      expect(badEnum.isError).toBe(true);
      expect(resultText(badEnum)).toContain("arguments.location must be equal to one of the allowed values");

      expect(spy).not.toHaveBeenCalled();

      // A valid call goes through the same connection.
      const ok = await callTool(pool.registry, "everything__echo", { message: "valid" });
      expect(ok.isError).toBe(false);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(spy.mock.calls[0]?.slice(0, 2)).toEqual(["echo", { message: "valid" }]);
    } finally {
      spy.mockRestore();
    }
  });

  it("reports progress of everything's long-running operation through onProgress", async () => {
    const progress: { progress: number; total?: number }[] = [];
    const result = await callTool(
      pool.registry,
      "everything__trigger-long-running-operation",
      { duration: 0.2, steps: 2 },
      { onProgress: (p) => progress.push(p) },
    );
    expect(result.isError).toBe(false);
    expect(progress.map((p) => p.progress)).toEqual([1, 2]);
    expect(progress.every((p) => p.total === 2)).toBe(true);
  });

  it("normalizes schemas once per target and per server view", () => {
    const openai = pool.registry.definitions("openai");
    expect(pool.registry.definitions("openai")).toBe(openai);
    expect(openai.map((d) => d.name).sort()).toEqual(pool.registry.list().map((t) => t.name).sort());
    const view = pool.registry.select(["memory"]);
    expect(pool.registry.select(["memory"])).toBe(view);
    expect(view.definitions("anthropic").map((d) => d.name).sort()).toEqual(names("memory"));
    expect(view.has("everything__echo")).toBe(false);
  });
});
