/**
 * The pool's life cycle with real child processes: a server that fails at start-up does not
 * hold the others back, is reported with its stderr tail and retried with backoff; close()
 * ends every child (a stubborn one too, and one still starting), leaving no process behind.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { Backoff } from "../../src/mcp/client/backoff.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import type { ToolRegistry } from "../../src/mcp/registry/registry.ts";
import { callTool, FAULT_SERVER, faultServerEntry, isAlive, logLines, resultText, serverBin, tempDir } from "../helpers/mcp-servers.ts";

const pools: McpPool[] = [];
const dirs: { remove: () => void }[] = [];

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
  for (const dir of dirs.splice(0)) dir.remove();
});

function makePool(mcpServers: Record<string, unknown>, options: { backoff?: () => Backoff; startupTimeoutMs?: number } = {}): McpPool {
  const pool = new McpPool(resolveConfig({ mcpServers }, {}).servers, { logger: silentLogger(), ...options });
  pools.push(pool);
  return pool;
}

/** A stdio server that prints a reason on stderr and exits at once. */
const failing = {
  command: process.execPath,
  args: ["-e", "console.error('starting...'); console.error('fatal: BROKEN_TOKEN is not set'); process.exit(3)"],
};

/** A process that never answers initialize (and ignores stdin closing); writes its pid to `pidFile`. */
function hanging(pidFile: string) {
  return { command: process.execPath, args: ["-e", "require('fs').writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1 << 30)", pidFile] };
}

function waitForRegistry(pool: McpPool, predicate: (registry: ToolRegistry) => boolean): Promise<ToolRegistry> {
  return new Promise((resolve) => {
    if (predicate(pool.registry)) return resolve(pool.registry);
    const off = pool.onChange((registry) => {
      if (!predicate(registry)) return;
      off();
      resolve(registry);
    });
  });
}

describe("McpPool life cycle", () => {
  it("reports a server that fails at start-up with its stderr tail, keeps the others, and retries it with backoff", async () => {
    const pool = makePool(
      { broken: failing, memory: { command: process.execPath, args: [serverBin("memory")], env: { MEMORY_FILE_PATH: "/dev/null" } } },
      { backoff: () => new Backoff(10, 40) },
    );
    await pool.start();
    const broken = () => pool.states().find((s) => s.name === "broken")!;
    expect(pool.states().find((s) => s.name === "memory")).toMatchObject({ status: "ready" });
    // With a 10-40 ms backoff it may already be in its next attempt ("starting"); its error and
    // retry time stay until it has connected.
    expect(["failed", "starting"]).toContain(broken().status);
    expect(broken()).toMatchObject({ toolCount: 0, retryAt: expect.any(Number) });
    expect(broken().error).toContain("fatal: BROKEN_TOKEN is not set");
    expect(broken().error).toContain("starting...");
    expect(broken().restarts).toBe(0);
    expect(pool.registry.list().every((t) => t.server === "memory")).toBe(true);
    expect(pool.registry.has("memory__read_graph")).toBe(true);

    // Retried in the background: the attempts grow, and each failure keeps its explanation.
    const attempts = broken().attempts;
    expect(attempts).toBeGreaterThanOrEqual(1);
    await vi.waitFor(() => expect(broken().attempts).toBeGreaterThanOrEqual(attempts + 3), { timeout: 10_000 });
    expect(["failed", "starting"]).toContain(broken().status);
    expect(broken().error).toContain("fatal: BROKEN_TOKEN is not set");

    // The healthy server works all along.
    const memory = await callTool(pool.registry, "memory__read_graph", {});
    expect(memory.isError).toBe(false);
  });

  it("restarts a stdio server that died between calls, in the background", async () => {
    const pool = makePool({ fault: faultServerEntry({ fillers: 0 }) }, { backoff: () => new Backoff(10, 40) });
    await pool.start();
    const connection = pool.connection("fault")!;
    const pid = connection.pid!;
    process.kill(pid, "SIGKILL");
    await vi.waitFor(() => expect(connection.status).toMatchObject({ status: "ready", restarts: 1 }), { timeout: 10_000 });
    expect(connection.pid).not.toBe(pid);
    expect(isAlive(pid)).toBe(false);
    expect(resultText(await callTool(pool.registry, "fault__echo", { text: "restarted" }))).toBe("echo: restarted");
  });

  it("gives each server its own backoff", async () => {
    const made: Backoff[] = [];
    const pool = makePool(
      { a: failing, b: failing },
      {
        backoff: () => {
          const backoff = new Backoff(60_000, 60_000);
          made.push(backoff);
          return backoff;
        },
      },
    );
    await pool.start();
    expect(made).toHaveLength(2);
    // One failure each: neither server's failure counted against the other.
    expect(made.map((b) => b.attempts)).toEqual([1, 1]);
  });

  it("does not let a server that never answers hold back the others", async () => {
    const dir = tempDir("mcp-gw-stuck-");
    dirs.push(dir);
    const pidFile = join(dir.path, "stuck.pid");
    const pool = makePool({ stuck: hanging(pidFile), fault: faultServerEntry({ fillers: 0 }) }, { startupTimeoutMs: 60_000 });
    const started = pool.start();
    // The fault server's tools are usable while `stuck` is still starting.
    const registry = await waitForRegistry(pool, (r) => r.has("fault__echo"));
    expect(pool.states().find((s) => s.name === "stuck")?.status).toBe("starting");
    expect(resultText(await callTool(registry, "fault__echo", { text: "not blocked" }))).toBe("echo: not blocked");
    await vi.waitFor(() => expect(existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "").toBe(true));
    const stuckPid = Number(readFileSync(pidFile, "utf8"));
    expect(isAlive(stuckPid)).toBe(true);

    // close() does not wait for the start-up timeout of the stuck server, and ends it.
    await pool.close();
    await started;
    expect(pool.states().map((s) => s.status)).toEqual(["closed", "closed"]);
    expect(isAlive(stuckPid)).toBe(false);
  });

  it("closes every server: no child process is left, even one that ignores stdin closing and SIGTERM", async () => {
    const dir = tempDir("mcp-gw-close-");
    dirs.push(dir);
    const stubbornLog = join(dir.path, "stubborn.log");
    const pool = makePool({
      stubborn: faultServerEntry({ log: stubbornLog, stubborn: true, fillers: 0 }),
      polite: faultServerEntry({ fillers: 0 }),
      everything: { command: process.execPath, args: [serverBin("everything")] },
    });
    await pool.start();
    const pids = ["stubborn", "polite", "everything"].map((name) => pool.connection(name)!.pid!);
    for (const pid of pids) {
      expect(pid).toEqual(expect.any(Number));
      expect(isAlive(pid)).toBe(true);
    }

    await pool.close();

    // Gone as soon as close() resolved: no polling needed.
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    // The stubborn one really did ignore the polite requests (so SIGKILL was needed).
    expect(logLines(stubbornLog)).toEqual(expect.arrayContaining(["stdin-closed-ignored", "sigterm-ignored"]));
    expect(pool.states().every((s) => s.status === "closed")).toBe(true);
    // A call after close is an error result, and starts nothing.
    const late = await callTool(pool.registry, "polite__echo", { text: "too late" });
    expect(late.isError).toBe(true);
    expect(resultText(late)).toContain("not available (closed)");
    expect(pool.connection("polite")!.pid).toBeNull();
  });

  it("a stubborn server below a wrapper (sh -c, as npx or uvx are) is ended too, not left orphaned", async () => {
    const dir = tempDir("mcp-gw-wrapped-");
    dirs.push(dir);
    const log = join(dir.path, "wrapped.log");
    // "; true" keeps sh as the parent (no exec): the SDK's SIGTERM/SIGKILL reach sh only.
    const command = `'${process.execPath}' --import tsx '${FAULT_SERVER}'; true`;
    const pool = makePool({
      wrapped: { command: "sh", args: ["-c", command], cwd: join(FAULT_SERVER, "..", "..", ".."), env: { FAULT_LOG: log, FAULT_STUBBORN: "1", FAULT_FILLERS: "0" } },
    });
    let server = 0;
    try {
      await pool.start();
      const wrapper = pool.connection("wrapped")!.pid!;
      const ready = logLines(log).find((line) => line.startsWith("ready "));
      server = Number(ready?.slice("ready ".length));
      expect(server).toBeGreaterThan(0);
      expect(server).not.toBe(wrapper);
      expect(isAlive(server)).toBe(true);

      await pool.close();

      expect(isAlive(wrapper)).toBe(false);
      expect(isAlive(server), "the real server below the wrapper").toBe(false);
      expect(logLines(log)).toEqual(expect.arrayContaining(["stdin-closed-ignored", "sigterm-ignored"]));
    } finally {
      if (server > 0 && isAlive(server)) process.kill(server, "SIGKILL");
    }
  });

  it("a server below a wrapper that never answers initialize is ended with the failed start, not left behind", async () => {
    const dir = tempDir("mcp-gw-wrapped-stuck-");
    dirs.push(dir);
    const pidFile = join(dir.path, "stuck.pid");
    const stuck = hanging(pidFile);
    const command = `${[stuck.command, ...stuck.args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ")}; true`;
    const pool = makePool({ wrapped: { command: "sh", args: ["-c", command] } }, { startupTimeoutMs: 500, backoff: () => new Backoff(60_000, 60_000) });
    let server = 0;
    try {
      await pool.start();
      expect(pool.connection("wrapped")!.status).toMatchObject({ status: "failed" });
      expect(existsSync(pidFile)).toBe(true);
      server = Number(readFileSync(pidFile, "utf8"));
      // The failed start has already ended it: before close(), which would otherwise be the last chance.
      expect(isAlive(server), "the real server below the wrapper").toBe(false);
      await pool.close();
    } finally {
      if (server > 0 && isAlive(server)) process.kill(server, "SIGKILL");
    }
  });

  it("a closed pool restarts nothing: a server crashing during close is not brought back", async () => {
    const pool = makePool({ fault: faultServerEntry({ fillers: 0 }) }, { backoff: () => new Backoff(1, 1) });
    await pool.start();
    const pid = pool.connection("fault")!.pid!;
    const crash = callTool(pool.registry, "fault__crash", {});
    await pool.close();
    expect((await crash).isError).toBe(true);
    expect(isAlive(pid)).toBe(false);
    expect(pool.connection("fault")!.status).toMatchObject({ status: "closed" });
    expect(pool.connection("fault")!.pid).toBeNull();
  });
});
