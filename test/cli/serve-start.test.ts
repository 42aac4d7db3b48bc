/**
 * The CLI with MCP servers that hang or cannot be started: `serve` listens at once (a hanging
 * server shows `starting` in /health, /ready is 503), `check` waits up to each server's start
 * timeout and prints its state, a command that does not exist is named, and `stdio` announces
 * tools/list_changed when a server comes up after it began serving.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { connectStdio, GATEWAY_BIN, ROOT, signal } from "../helpers/mcp-gateway-harness.ts";
import { isAlive, logLines, slowServerEntry } from "../helpers/mcp-servers.ts";

const children: ChildProcess[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-start-cli-"));
  dirs.push(dir);
  return dir;
}

function writeConfig(config: object): string {
  const file = join(folder(), "mcp.config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [GATEWAY_BIN, ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "info" } });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** check's tables with wrapped cells and notes joined back to one line each. */
function unwrapped(table: string): string {
  return table.replace(/\n {4,}/g, " ");
}

describe("mcp-gateway serve with a server that never answers", () => {
  it('prints "listening" at once, answers /health (starting) and /ready (503), and stops on SIGTERM', async () => {
    const log = join(folder(), "spawns.log");
    // A start timeout far beyond this test's: the server is still starting throughout.
    const config = writeConfig({ mcpServers: { hang: slowServerEntry({ mode: "hang", log }, { startTimeoutMs: 120_000 }) }, gateway: { port: 0 } });
    const child = spawn(process.execPath, [GATEWAY_BIN, "serve", "--config", config], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: "info" } });
    children.push(child);
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (d) => {
        stderr += d;
        const match = /listening on (http:\/\/[^"\s]+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      child.on("exit", () => reject(new Error(`exited early: ${stderr}`)));
    });
    expect(stderr).toContain('"startingServers":["hang"]');
    const health = (await (await fetch(`${url}/health`)).json()) as { servers: { name: string; status: string }[] };
    expect(health.servers).toEqual([expect.objectContaining({ name: "hang", status: "starting" })]);
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "starting", starting: ["hang"] });
    // The server process itself is up (it writes its pid as it starts, maybe after "listening").
    const pid = await vi.waitFor(() => {
      const line = logLines(log)[0];
      expect(line).toMatch(/^spawned \d+$/);
      return Number(line!.split(" ")[1]);
    });
    expect(isAlive(pid)).toBe(true);

    // Shutdown does not wait for the start timeout, and ends the stuck server.
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(isAlive(pid)).toBe(false);
  });
});

describe("mcp-gateway check", () => {
  it("waits up to a server's start timeout, then reports it failed with the timeout", async () => {
    const config = writeConfig({ mcpServers: { hang: slowServerEntry({ mode: "hang" }, { startTimeoutMs: 300 }), quick: slowServerEntry() } });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(unwrapped(stdout)).toMatch(/hang\s+stdio\s+failed\s+0\s+start timed out after 300 ms waiting for an answer to initialize/);
    expect(stdout).toMatch(/quick\s+stdio\s+ready\s+1/);
  });

  it("names a command that does not exist", async () => {
    const config = writeConfig({ mcpServers: { ghost: { command: "mcp-gw-no-such-command-4711" } } });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(unwrapped(stdout)).toMatch(/ghost\s+stdio\s+failed\s+0\s+command "mcp-gw-no-such-command-4711" not found \(is it installed and on PATH\?\)/);
  });

  it("gateway.serverStartTimeoutMs is the default start timeout", async () => {
    const config = writeConfig({ mcpServers: { hang: slowServerEntry({ mode: "hang" }) }, gateway: { serverStartTimeoutMs: 250 } });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(unwrapped(stdout)).toContain("start timed out after 250 ms");
  });
});

describe("mcp-gateway stdio", () => {
  it("announces tools/list_changed when a server whose first start failed comes up later", async () => {
    const gate = join(folder(), "gate");
    const config = writeConfig({ mcpServers: { late: slowServerEntry({ mode: "gate", gate }, { startTimeoutMs: 300 }) } });
    const changed = signal();
    const gateway = await connectStdio(config, {}, (client) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed.resolve()));
    try {
      // Served once the first start ended (timed out here): without the server's tools.
      expect((await gateway.client.listTools()).tools.map((t) => t.name)).not.toContain("late__ping");
      writeFileSync(gate, "");
      // Its retry (with backoff) finds it answering.
      await changed.promise;
      expect((await gateway.client.listTools()).tools.map((t) => t.name)).toContain("late__ping");
      expect(gateway.errors).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});
