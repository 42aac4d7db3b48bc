/**
 * McpPool.onReady / ConnectionOptions.onReady: told after every successful connect of a server
 * (first start and each restart), never for a failed attempt, with the registry already rebuilt.
 * Against the fault server (a real child process), killed with SIGKILL.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { McpPool, type ReadyInfo } from "../../src/mcp/pool.ts";
import { faultServerEntry, isAlive, logLines, tempDir } from "../helpers/mcp-servers.ts";

const dir = tempDir("mcp-gw-ready-");
const logFile = join(dir.path, "fault.log");
let pool: McpPool;
/** Every onReady call, from PoolOptions.onReady, in order. */
const fromOptions: { server: string; info: ReadyInfo }[] = [];

beforeAll(async () => {
  const config = resolveConfig({ mcpServers: { fault: faultServerEntry({ log: logFile, fillers: 0 }) } }, {});
  pool = new McpPool(config.servers, { logger: silentLogger(), onReady: (server, info) => void fromOptions.push({ server, info }) });
  await pool.start();
});

afterAll(async () => {
  await pool?.close();
  dir.remove();
});

describe("onReady", () => {
  it("fires once for the first start, as a first start", () => {
    expect(fromOptions).toEqual([{ server: "fault", info: { restart: false } }]);
  });

  it("fires after a crashed server was restarted, as a restart, with the new process up and its tools listed", async () => {
    const connection = pool.connection("fault")!;
    const oldPid = connection.pid!;
    expect(oldPid).toBeGreaterThan(0);
    const seen: { server: string; info: ReadyInfo; pid: number | null; status: string; tools: number }[] = [];
    const ready = new Promise<void>((resolve) => {
      const off = pool.onReady((server, info) => {
        seen.push({ server, info, pid: connection.pid, status: connection.status.status, tools: pool.registry.list().length });
        off();
        resolve();
      });
    });
    process.kill(oldPid, "SIGKILL");
    await ready;
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ server: "fault", info: { restart: true }, status: "ready" });
    expect(seen[0]!.pid).not.toBe(oldPid);
    expect(seen[0]!.tools).toBeGreaterThan(0);
    expect(isAlive(oldPid)).toBe(false);
    expect(connection.status.restarts).toBe(1);
    // The new process is the one that said "ready" last.
    expect(logLines(logFile).filter((l) => l.startsWith("ready ")).at(-1)).toBe(`ready ${seen[0]!.pid}`);
    expect(fromOptions.map((r) => r.info.restart)).toEqual([false, true]);
  });

  it("stops calling a listener once it unsubscribed", async () => {
    const connection = pool.connection("fault")!;
    const before = connection.status.restarts;
    let calls = 0;
    const off = pool.onReady(() => calls++);
    off();
    process.kill(connection.pid!, "SIGKILL");
    await vi.waitFor(() => expect(fromOptions).toHaveLength(3), { timeout: 20_000, interval: 10 });
    expect(connection.status).toMatchObject({ status: "ready", restarts: before + 1 });
    expect(calls).toBe(0);
  });
});
