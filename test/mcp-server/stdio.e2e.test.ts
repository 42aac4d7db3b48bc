/**
 * `mcp-gateway stdio`: stdout carries only protocol messages (logs go to stderr), the tools list
 * works through the SDK's StdioClientTransport, and the gateway exits cleanly when its client
 * closes stdin.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { connectStdio, fixtureServer, GATEWAY_BIN, ROOT, textOf, writeConfig } from "../helpers/mcp-gateway-harness.ts";
import { FAULT_SERVER, isAlive, logLines, tempDir } from "../helpers/mcp-servers.ts";

let config: { path: string; remove(): void };

beforeAll(() => {
  config = writeConfig({ mcpServers: { fixture: fixtureServer() } });
});

afterAll(() => config?.remove());


describe("mcp-gateway stdio", () => {
  it("serves the tools over stdin/stdout with logs on stderr only, and exits when stdin closes", async () => {
    const gateway = await connectStdio(config.path);
    const { tools } = await gateway.client.listTools();
    expect(tools.map((t) => t.name)).toContain("fixture__test_simple_text");
    expect(textOf(await gateway.client.callTool({ name: "fixture__test_simple_text", arguments: {} }))).toBe("This is a simple text response for testing.");
    // A log line or any other text on stdout would have been a parse error in the client.
    expect(gateway.errors).toEqual([]);
    expect(gateway.stderr()).toContain("mcp-gateway serving MCP on stdio");
    await gateway.close();
    expect(gateway.stderr()).toContain('"reason":"stdin closed"');
    expect(isAlive(gateway.pid!)).toBe(false);
  });

  it("closed the SDK's way (stdin end; SIGTERM at 2 s, SIGKILL at 4 s), it ends even a stubborn server below a wrapper before its client kills it", async () => {
    const dir = tempDir("mcp-gw-stdio-close-");
    const log = join(dir.path, "stubborn.log");
    // "; true" keeps sh as the parent, as npx or uvx are; the server ignores stdin closing and SIGTERM.
    const command = `'${process.execPath}' --import tsx '${FAULT_SERVER}'; true`;
    const wrapped = writeConfig({ mcpServers: { wrapped: { command: "sh", args: ["-c", command], cwd: ROOT, env: { FAULT_LOG: log, FAULT_STUBBORN: "1", FAULT_FILLERS: "0" } } } });
    let server = 0;
    try {
      const gateway = await connectStdio(wrapped.path);
      expect((await gateway.client.listTools()).tools.map((t) => t.name)).toContain("wrapped__echo");
      server = Number(logLines(log).find((line) => line.startsWith("ready "))?.slice("ready ".length));
      expect(isAlive(server)).toBe(true);
      await gateway.close();
      // The gateway finished its own shutdown before its client's SIGTERM (sent 2 s after stdin
      // closed, and logged if it had come) ...
      expect(gateway.stderr()).toContain('"msg":"stopped"');
      expect(gateway.stderr()).not.toContain('"signal":"SIGTERM"');
      // ... and nothing of the server is left.
      expect(isAlive(server), "the stubborn server below the wrapper").toBe(false);
    } finally {
      if (server > 0 && isAlive(server)) process.kill(server, "SIGKILL");
      wrapped.remove();
      dir.remove();
    }
  });

  it("writes nothing but JSON-RPC messages on stdout", async () => {
    const child = spawn(process.execPath, [GATEWAY_BIN, "stdio", "--config", config.path], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, LOG_LEVEL: "debug" } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const lines: string[] = [];
    const answered = new Promise<void>((resolve) => {
      createInterface({ input: child.stdout }).on("line", (line) => {
        lines.push(line);
        if (line.includes('"id":2')) resolve();
      });
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await answered;
    child.stdin.end();
    expect(await exited).toBe(0);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(stderr).toContain("mcp server ready"); // the logs went to stderr
  });
});
