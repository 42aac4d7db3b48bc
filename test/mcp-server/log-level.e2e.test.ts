/**
 * Several MCP clients set their own logging level. The upstream server gets the most verbose
 * level any connected client wants (one client's "error" must not silence another's "debug"),
 * each client still receives only its own level and above, and when the verbose client leaves
 * the upstream level is raised to what the remaining clients want.
 *
 * Real processes: the gateway in-process with /mcp over HTTP, SDK clients, and
 * test/helpers/stateful-server.ts, which logs every setLevel it receives with its pid.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectHttp, startMcpGateway, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { logLines, tempDir } from "../helpers/mcp-servers.ts";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const STATEFUL_SERVER = join(ROOT, "test", "helpers", "stateful-server.ts");
const dir = tempDir("mcp-gw-loglevel-");
const log = join(dir.path, "s.log");

/** The setLevel requests the upstream process received, in order. */
function levelsSet(pid: number): string[] {
  return logLines(log).flatMap((line) => (line.startsWith(`${pid} setLevel `) ? [line.slice(`${pid} setLevel `.length)] : []));
}

let gw: McpGateway;
let verbose: HttpClient;
let quiet: HttpClient;

beforeAll(async () => {
  gw = await startMcpGateway({
    mcpServers: { s: { command: process.execPath, args: ["--import", "tsx", STATEFUL_SERVER], cwd: ROOT, env: { STATE_LOG: log } } },
  });
  verbose = await connectHttp(gw.mcpUrl, { name: "verbose" });
  quiet = await connectHttp(gw.mcpUrl, { name: "quiet" });
});

afterAll(async () => {
  await quiet?.client.close();
  await verbose?.client.close();
  await gw?.close();
  dir.remove();
});

describe("logging/setLevel from several clients", () => {
  it("the upstream keeps the most verbose level wanted; a client leaving raises it to what the others want", async () => {
    const pid = gw.gateway.pool.connection("s")!.pid!;
    await verbose.client.setLoggingLevel("debug");
    await quiet.client.setLoggingLevel("error");
    // "error" would silence the verbose client's debug logs: it is not forwarded.
    expect(levelsSet(pid)).toEqual(["debug"]);

    await quiet.client.setLoggingLevel("warning");
    expect(levelsSet(pid)).toEqual(["debug"]);

    // The verbose client ends its session (DELETE /mcp, as the spec has clients do).
    await verbose.transport.terminateSession();
    await verbose.client.close();
    // The upstream request is sent after the session is gone: waited for (a hang guard, not a timing assertion).
    await vi.waitFor(() => expect(levelsSet(pid)).toEqual(["debug", "warning"]), { timeout: 20_000, interval: 10 });
  });
});
