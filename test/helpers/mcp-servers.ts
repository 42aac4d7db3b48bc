/**
 * Real MCP servers for tests: the npm reference servers run with `node` on their bin files,
 * server-everything's HTTP modes as loopback-pinned child processes, and the fault server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolCallContext, ToolResultBlock, ToolSet } from "../../src/core/index.ts";

const root = resolve(fileURLToPath(new URL("../..", import.meta.url)));

/** The bin file of an installed `@modelcontextprotocol/server-<name>` package. */
export function serverBin(name: "everything" | "filesystem" | "memory"): string {
  return join(root, "node_modules", "@modelcontextprotocol", `server-${name}`, "dist", "index.js");
}

export const LOOPBACK_PRELOAD = join(root, "test", "helpers", "loopback-preload.cjs");
export const FAULT_SERVER = join(root, "test", "helpers", "fault-server.ts");

export interface FaultServerOptions {
  log?: string;
  pageSize?: number;
  fillers?: number;
  stubborn?: boolean;
}

/** An mcp.config.json stdio entry for the fault server (node itself, no npx/tsx wrapper process). */
export function faultServerEntry(options: FaultServerOptions = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const env: Record<string, string> = {};
  if (options.log !== undefined) env.FAULT_LOG = options.log;
  if (options.pageSize !== undefined) env.FAULT_PAGE_SIZE = String(options.pageSize);
  if (options.fillers !== undefined) env.FAULT_FILLERS = String(options.fillers);
  if (options.stubborn) env.FAULT_STUBBORN = "1";
  return { command: process.execPath, args: ["--import", "tsx", FAULT_SERVER], cwd: root, env, ...extra };
}

/** Lines of the fault server's event log (empty when not written yet). */
export function logLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "") : [];
}

export function tempDir(prefix: string): { path: string; remove: () => void } {
  // realpath: server-filesystem compares resolved paths against its allowed directories.
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  // A killed orphan whose new parent (pid 1 in a container) has not reaped it yet is a zombie:
  // it is dead, and signals still "reach" it.
  return !isZombie(pid);
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return false;
  }
}

let callCounter = 0;

/** Calls a tool of a registry the way the agent loop does. */
export function callTool(tools: ToolSet, name: string, args: Record<string, unknown>, context: ToolCallContext = {}): Promise<ToolResultBlock> {
  const id = `call_${++callCounter}`;
  return tools.call({ type: "tool_call", id, name, arguments: args, rawArguments: JSON.stringify(args) }, context);
}

/** The text blocks of a result, joined. */
export function resultText(result: ToolResultBlock): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(0, "127.0.0.1", ok);
  });
  const address = server.address();
  await new Promise<void>((ok) => server.close(() => ok()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((ok) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      ok(true);
    });
    socket.once("error", () => ok(false));
  });
}

export interface HttpServerProcess {
  port: number;
  child: ChildProcess;
  /** Everything the server wrote on stderr so far. */
  stderr: () => string;
  stop: () => Promise<void>;
}

/**
 * server-everything in `streamableHttp` or `sse` mode on a free loopback port (PORT env, as its
 * transports read it), resolved once it accepts connections.
 */
export async function startEverythingHttp(mode: "streamableHttp" | "sse"): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--require", LOOPBACK_PRELOAD, serverBin("everything"), mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  // Bounded: 200 attempts, each ending when the connect attempt succeeds or is refused.
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`server-everything ${mode} exited: ${stderr}`);
    if (await canConnect(port)) return { port, child, stderr: () => stderr, stop };
    await new Promise((ok) => setTimeout(ok, 25));
  }
  await stop();
  throw new Error(`server-everything ${mode} did not accept connections on ${port}: ${stderr}`);
}

export const SLOW_SERVER = join(root, "test", "helpers", "slow-server.mjs");

export interface SlowServerOptions {
  /** "hang": never answers initialize; "hang-tools": never answers tools/list; "gate": answers once `gate` exists. */
  mode?: "hang" | "hang-tools" | "gate";
  gate?: string;
  /** A file that gets "spawned <pid>" for every start. */
  log?: string;
}

/** An mcp.config.json stdio entry for the slow server (test/helpers/slow-server.mjs, plain node). */
export function slowServerEntry(options: SlowServerOptions = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const env: Record<string, string> = {};
  if (options.mode) env.SLOW_MODE = options.mode;
  if (options.gate) env.SLOW_GATE = options.gate;
  if (options.log) env.SLOW_LOG = options.log;
  return { command: process.execPath, args: [SLOW_SERVER], env, ...extra };
}
