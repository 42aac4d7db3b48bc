/**
 * How servers start: in the background, each within its start timeout (mcpServers.<name>.
 * startTimeoutMs, default gateway.serverStartTimeoutMs), a hung start failed with a clear
 * error and retried with backoff like a crash; a command that does not exist failed at once,
 * naming it, and never retried. Synchronized on the pool's status events, never on sleeps.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { Backoff } from "../../src/mcp/client/backoff.ts";
import { McpPool, type ServerState } from "../../src/mcp/pool.ts";
import { callTool, logLines, resultText, slowServerEntry, tempDir } from "../helpers/mcp-servers.ts";

const pools: McpPool[] = [];
const dirs: { remove: () => void }[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  for (const dir of dirs.splice(0)) dir.remove();
});

function makePool(json: Record<string, unknown>, backoffs: Backoff[] = []): McpPool {
  const pool = new McpPool(resolveConfig(json, {}).servers, {
    logger: silentLogger(),
    backoff: () => {
      const backoff = new Backoff(60_000, 60_000);
      backoffs.push(backoff);
      return backoff;
    },
  });
  pools.push(pool);
  return pool;
}

function dir(): string {
  const made = tempDir("mcp-gw-start-");
  dirs.push(made);
  return made.path;
}

/** Every status event of the pool, in order. */
function recordStatuses(pool: McpPool): ServerState[] {
  const seen: ServerState[] = [];
  pool.onStatus((state) => seen.push(state));
  return seen;
}

/** Resolves with the first state of `server` that satisfies `predicate` (now or in a later status event). */
function nextState(pool: McpPool, server: string, predicate: (state: ServerState) => boolean): Promise<ServerState> {
  return new Promise((resolve) => {
    const now = pool.connection(server)!.status;
    if (predicate(now)) return resolve(now);
    const off = pool.onStatus((state) => {
      if (state.name !== server || !predicate(state)) return;
      off();
      resolve(state);
    });
  });
}

describe("start timeout", () => {
  it("config: mcpServers.<name>.startTimeoutMs, else gateway.serverStartTimeoutMs, else 30 s; a bad value names its path", () => {
    const servers = (json: Record<string, unknown>) => resolveConfig(json, {}).servers.map((s) => [s.name, s.startTimeoutMs]);
    expect(servers({ mcpServers: { a: { command: "x" } } })).toEqual([["a", 30_000]]);
    expect(servers({ mcpServers: { a: { command: "x" }, b: { command: "x", startTimeoutMs: 500 } }, gateway: { serverStartTimeoutMs: 5_000 } })).toEqual([
      ["a", 5_000],
      ["b", 500],
    ]);
    expect(resolveConfig({ gateway: { serverStartTimeoutMs: 1234 } }, {}).gateway.serverStartTimeoutMs).toBe(1234);
    expect(() => resolveConfig({ mcpServers: { a: { command: "x", startTimeoutMs: 0 } } }, {})).toThrow(ConfigError);
    expect(() => resolveConfig({ mcpServers: { a: { command: "x", startTimeoutMs: 0 } } }, {})).toThrow(/mcpServers\.a\.startTimeoutMs/);
    expect(() => resolveConfig({ gateway: { serverStartTimeoutMs: "soon" } }, {})).toThrow(/gateway\.serverStartTimeoutMs/);
  });

  it("a server that never answers initialize is starting, then failed with the timeout named, and retried with backoff", async () => {
    const backoffs: Backoff[] = [];
    const pool = makePool({ mcpServers: { hang: slowServerEntry({ mode: "hang" }, { startTimeoutMs: 300 }) } }, backoffs);
    const seen = recordStatuses(pool);
    const started = pool.start();
    expect(pool.connection("hang")!.status.status).toBe("starting");
    expect(pool.startingServers()).toEqual(["hang"]);
    const began = Date.now();
    await started;
    const elapsed = Date.now() - began;
    const state = pool.connection("hang")!.status;
    expect(state).toMatchObject({ status: "failed", attempts: 1, toolCount: 0, retryAt: expect.any(Number) });
    expect(state.error).toContain("start timed out after 300 ms waiting for an answer to initialize");
    expect(state.error).toContain("mcpServers.hang.startTimeoutMs");
    // Bounded by the start timeout (not the SDK's 60 s request timeout, nor the old 30 s).
    expect(elapsed).toBeLessThan(5_000);
    expect(pool.startingServers()).toEqual([]);
    // Starting from the outset (no event for that), then failed.
    expect(seen.map((s) => s.status)).toEqual(["failed"]);
    // Retried like a crash: the backoff was consulted once.
    expect(backoffs[0]!.attempts).toBe(1);
  });

  it("a server that answers initialize but never tools/list times out too, saying so", async () => {
    // Long enough for initialize to be answered on a busy machine (300 ms was not, now and then).
    const pool = makePool({ mcpServers: { mute: slowServerEntry({ mode: "hang-tools" }, { startTimeoutMs: 3_000 }) } });
    await pool.start();
    expect(pool.connection("mute")!.status).toMatchObject({ status: "failed" });
    expect(pool.connection("mute")!.status.error).toContain("start timed out after 3000 ms waiting for the tools/list answer");
  });

  it("a server that answers late (within its timeout) is ready, its tools joining the registry when it is", async () => {
    const gate = join(dir(), "gate");
    const pool = makePool({ mcpServers: { late: slowServerEntry({ mode: "gate", gate }), quick: slowServerEntry() } });
    const started = pool.start();
    await nextState(pool, "quick", (s) => s.status === "ready");
    expect(pool.registry.has("quick__ping")).toBe(true);
    expect(pool.registry.has("late__ping")).toBe(false);
    expect(pool.startingServers()).toEqual(["late"]);
    const ready = new Promise<string>((resolve) => pool.onReady((server) => resolve(server)));
    writeFileSync(gate, "");
    expect(await ready).toBe("late");
    expect(pool.registry.has("late__ping")).toBe(true);
    await started;
    expect(pool.startingServers()).toEqual([]);
    expect(resultText(await callTool(pool.registry, "late__ping", {}))).toBe("pong");
  });
});

describe("a command that cannot be run", () => {
  it("a command not on PATH fails at once, naming it, and is never retried", async () => {
    const backoffs: Backoff[] = [];
    const pool = makePool({ mcpServers: { ghost: { command: "mcp-gw-no-such-command-4711", args: ["--stdio"] } } }, backoffs);
    const seen = recordStatuses(pool);
    await pool.start();
    const connection = pool.connection("ghost")!;
    expect(connection.status).toMatchObject({ status: "failed", attempts: 1, toolCount: 0 });
    expect(connection.status.retryAt).toBeUndefined();
    expect(connection.status.error).toBe('command "mcp-gw-no-such-command-4711" not found (is it installed and on PATH?); not retried: fix the config and restart the gateway');
    // No backoff was taken: no retry is scheduled.
    expect(backoffs[0]!.attempts).toBe(0);
    // Nothing brings it back: not a start, not a call (which restarts a server that failed once or twice).
    await connection.start();
    const direct = await connection.callTool("anything", {}).catch((error: Error) => error.message);
    expect(direct).toContain('command "mcp-gw-no-such-command-4711" not found');
    expect(connection.status).toMatchObject({ status: "failed", attempts: 1 });
    // One start, one failure: no "starting" flip-flop after it.
    expect(seen.map((s) => s.status)).toEqual(["failed"]);
  });

  it("a path that does not exist, a file that is not executable, a cwd that does not exist: each named", async () => {
    const folder = dir();
    const notExecutable = join(folder, "server.sh");
    writeFileSync(notExecutable, "#!/bin/sh\nexit 0\n");
    chmodSync(notExecutable, 0o644);
    const log = join(folder, "spawns.log");
    const pool = makePool({
      mcpServers: {
        missing: { command: join(folder, "nope", "server") },
        plain: { command: notExecutable },
        nowhere: { ...slowServerEntry({ log }), cwd: join(folder, "no-such-folder") },
      },
    });
    await pool.start();
    const error = (name: string) => pool.connection(name)!.status.error;
    expect(error("missing")).toContain(`command "${join(folder, "nope", "server")}" not found (no such file)`);
    expect(error("plain")).toContain(`command "${notExecutable}" cannot be run: permission denied (is it an executable file?)`);
    expect(error("nowhere")).toContain(`cwd "${join(folder, "no-such-folder")}" does not exist`);
    expect(pool.states().map((s) => [s.name, s.status, s.attempts])).toEqual([
      ["missing", "failed", 1],
      ["plain", "failed", 1],
      ["nowhere", "failed", 1],
    ]);
    expect(logLines(log)).toEqual([]);
  });

  it("a command that exists but exits at once is still retried with backoff (it may be transient)", async () => {
    const backoffs: Backoff[] = [];
    const pool = makePool({ mcpServers: { dies: { command: process.execPath, args: ["-e", "process.exit(3)"] } } }, backoffs);
    await pool.start();
    expect(pool.connection("dies")!.status).toMatchObject({ status: "failed", retryAt: expect.any(Number) });
    expect(backoffs[0]!.attempts).toBe(1);
  });
});
