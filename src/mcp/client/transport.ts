/**
 * Builds the MCP SDK transport for one configured server. Streamable HTTP servers that turn
 * out to be legacy SSE servers are retried over SSE, as the MCP spec's backwards-compatibility
 * section recommends.
 */
import { existsSync } from "node:fs";
import { SSEClientTransport, StreamableHTTPClientTransport, type Client, type JSONRPCMessage, type PriorDiscovery, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import type { RemoteServerConfig, ServerConfig, StdioServerConfig } from "../../core/config/index.ts";
import { createFastFetch } from "../../core/fast-fetch.ts";
import { readEventStreamsDirectly } from "./lean-sse.ts";
import { MARKER_VARIABLE } from "./server-processes.ts";


/**
 * The SDK's transports call fetch for every message; the undici-based one costs a quarter less
 * CPU per forwarded tools/call than Node's WHATWG fetch (measured through /mcp). Idle
 * connections are kept 4 s, as by Node's fetch: MCP servers behind servers that close idle
 * connections at 5 s without saying so (uvicorn) would otherwise race a reuse, and the SDK
 * does not retry a POST.
 */
const fastFetch = createFastFetch({ keepAliveTimeout: 4_000 });
/** The Streamable HTTP transport's: its event streams are read without web streams (lean-sse.ts). */
const streamableFetch = createFastFetch({ keepAliveTimeout: 4_000, directEventStreams: true });

export interface OpenedTransport {
  transport: Transport;
  /** The stdio child's stderr, when there is one. */
  stderr?: NodeJS.ReadableStream | null;
  /** The child process id, when there is one. */
  pid?: () => number | null;
  /** The transport actually used ("http" may end up "sse"). */
  kind: "stdio" | "http" | "sse";
}

export function stdioTransport(config: StdioServerConfig, marker?: string): OpenedTransport {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    // Claude Desktop semantics: a minimal inherited environment plus the server's own env, and
    // the start's marker, which finds the processes it leaves behind (server-processes.ts).
    env: { ...getDefaultEnvironment(), ...config.env, ...(marker ? { [MARKER_VARIABLE]: marker } : {}) },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: "pipe",
  });
  return { transport, stderr: transport.stderr as NodeJS.ReadableStream | null, pid: () => transport.pid, kind: "stdio" };
}

/** Listeners attached to a transport before it starts, so that nothing is missed. */
export interface TransportHooks {
  /** Each chunk of a stdio child's stderr, from its very start. */
  onStderr?: (text: string) => void;
  /** Every incoming message, synchronously and in order, before the SDK's Protocol handles it. */
  onMessage?: (message: JSONRPCMessage) => void;
  /** Put in a stdio child's environment (see server-processes.ts). */
  marker?: string;
  /** The server's era as found before (./era.ts): connect without probing. */
  prior?: PriorDiscovery | undefined;
}

/**
 * Installs the hooks on a transport that has not started yet. Protocol.connect() keeps an
 * `onmessage` already set on the transport and calls it first for every message.
 */
function hook<T extends Transport>(transport: T, hooks: TransportHooks): T {
  if (hooks.onMessage) {
    const onMessage = hooks.onMessage;
    transport.onmessage = (message) => onMessage(message);
  }
  return transport;
}

/** SSE servers are of the 2025 era: no probe. */
const LEGACY: PriorDiscovery = { kind: "legacy" };

function connectOptions(timeoutMs: number, prior: PriorDiscovery | undefined) {
  return { timeout: timeoutMs, ...(prior ? { prior } : {}) };
}

function remoteInit(config: RemoteServerConfig): RequestInit {
  return { headers: config.headers };
}

/**
 * Connects `client` to the server. For `http`, tries Streamable HTTP first and falls back to
 * SSE when the server answers the initialize POST with a 4xx (what legacy servers do).
 */
export async function connectClient(client: Client, config: ServerConfig, timeoutMs: number, hooks: TransportHooks = {}): Promise<OpenedTransport> {
  if (config.transport === "stdio") {
    const opened = stdioTransport(config, hooks.marker);
    // Listen to stderr before the child starts: a server that fails at start-up explains why
    // on stderr, and that output must be in its error (it used to be attached only after a
    // successful connect, so a failing server's error never had its stderr tail).
    if (hooks.onStderr) {
      const onStderr = hooks.onStderr;
      opened.stderr?.on("data", (chunk: Buffer | string) => onStderr(chunk.toString()));
    }
    hook(opened.transport, hooks);
    await client.connect(opened.transport, connectOptions(timeoutMs, hooks.prior));
    return opened;
  }
  const url = new URL(config.url);
  if (config.transport === "sse") {
    const transport = hook(new SSEClientTransport(url, { requestInit: remoteInit(config), fetch: fastFetch }), hooks);
    await client.connect(transport, connectOptions(timeoutMs, LEGACY));
    return { transport, kind: "sse" };
  }
  const transport = hook(new StreamableHTTPClientTransport(url, { requestInit: remoteInit(config), fetch: streamableFetch }), hooks);
  readEventStreamsDirectly(transport);
  try {
    await client.connect(transport, connectOptions(timeoutMs, hooks.prior));
    return { transport, kind: "http" };
  } catch (error) {
    if (!looksLikeLegacySse(error)) throw error;
    await transport.close().catch(() => undefined);
    const sse = hook(new SSEClientTransport(url, { requestInit: remoteInit(config), fetch: fastFetch }), hooks);
    try {
      await client.connect(sse, connectOptions(timeoutMs, LEGACY));
    } catch (fallbackError) {
      // Both failed: most often the URL is wrong (a 404 to both). The first answer is the one
      // that says so; the SSE attempt's alone ("Invalid content type") hid it.
      throw new Error(`Streamable HTTP: ${httpErrorText(error)}; then the legacy SSE fallback: ${errorText(fallbackError)}`, { cause: fallbackError });
    }
    return { transport: sse, kind: "sse" };
  }
}

/**
 * Why a stdio server's command could not be started at all (spawn's ENOENT or EACCES), or
 * undefined for any other failure. Such a start fails the same way every time: the caller
 * reports it at once and does not retry it.
 */
export function spawnFailure(error: unknown, config: ServerConfig): string | undefined {
  if (config.transport !== "stdio") return undefined;
  const { code, syscall } = error as { code?: unknown; syscall?: unknown };
  if (typeof syscall !== "string" || !syscall.startsWith("spawn")) return undefined;
  const command = JSON.stringify(config.command);
  if (code === "ENOENT") {
    // Node says ENOENT for a missing working folder too, naming the command.
    if (config.cwd !== undefined && !existsSync(config.cwd)) return `cwd ${JSON.stringify(config.cwd)} does not exist (the folder to start command ${command} in)`;
    return config.command.includes("/") || config.command.includes("\\")
      ? `command ${command} not found (no such file)`
      : `command ${command} not found (is it installed and on PATH?)`;
  }
  if (code === "EACCES") return `command ${command} cannot be run: permission denied (is it an executable file?)`;
  return undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The HTTP status of a transport error: the SDK's Streamable HTTP error carries it as `status` (its SSE error as a numeric `code`). */
function httpStatus(error: unknown): number | undefined {
  const { status, code } = (error ?? {}) as { status?: unknown; code?: unknown };
  return typeof status === "number" ? status : typeof code === "number" ? code : undefined;
}

/** The status and the start of the page's body (the SDK's message). */
function httpErrorText(error: unknown): string {
  const status = httpStatus(error);
  const body = errorText(error).replace(/^(Streamable HTTP error: |Error POSTing to endpoint: )/, "").split("\n")[0]!.slice(0, 120);
  return status === undefined ? body : `HTTP ${status} (${body})`;
}

function looksLikeLegacySse(error: unknown): boolean {
  const status = httpStatus(error);
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 403;
}
