/**
 * The gateway as an MCP server, for tests: started in-process with /mcp on 127.0.0.1:<free
 * port>, or as `node bin/mcp-gateway.js stdio` in a child process; and MCP SDK clients for both.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { listen } from "../../src/gateway/http/listen.ts";
import { createGateway, type Gateway } from "../../src/gateway/runtime.ts";

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
export const FIXTURE_SERVER = join(ROOT, "test", "conformance", "fixture-server.ts");
export const EVERYTHING_SERVER = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
export const GATEWAY_BIN = join(ROOT, "bin", "mcp-gateway.js");

/** An mcp.config.json entry running the conformance fixture server over stdio. */
export function fixtureServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: ["--import", "tsx", FIXTURE_SERVER, "stdio"], cwd: ROOT, ...extra };
}

/** An mcp.config.json entry running server-everything over stdio (node on its bin, no npx). */
export function everythingServer(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [EVERYTHING_SERVER], ...extra };
}

export interface McpGateway {
  url: string;
  /** `<url>/mcp` */
  mcpUrl: URL;
  gateway: Gateway;
  close(): Promise<void>;
}

/** A gateway from this config (no default servers), listening on 127.0.0.1:<free port>. */
export async function startMcpGateway(json: Record<string, unknown>, env: Record<string, string> = {}): Promise<McpGateway> {
  const gateway = await createGateway(resolveConfig(json, env), { logger: silentLogger() });
  const server = await listen(gateway.app, "127.0.0.1", 0);
  // Every server's first start ended: the tests expect their tools listed from the first request.
  await gateway.started;
  return {
    url: server.url,
    mcpUrl: new URL(`${server.url}/mcp`),
    gateway,
    async close() {
      await gateway.mcpHttp.close();
      await server.close(1_000);
      await gateway.close();
    },
  };
}

export interface ClientOptions {
  name?: string;
  capabilities?: ClientCapabilities;
  /** HTTP only: extra request headers (Authorization). */
  headers?: Record<string, string>;
  /**
   * Sees every incoming message, synchronously and in order, before the SDK handles it. (The
   * SDK's `onprogress` can miss a progress notification that arrives in the same read as the
   * response: it routes notifications a microtask later but forgets the token at once.)
   */
  tap?: (message: JSONRPCMessage) => void;
  /** stdio only: extra environment variables of the gateway's process. */
  env?: Record<string, string>;
}

function newClient(options: ClientOptions): Client {
  return new Client({ name: options.name ?? "gateway-test-client", version: "1.0.0" }, { capabilities: options.capabilities ?? {} });
}

export interface HttpClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/**
 * An SDK client over Streamable HTTP. `setup` runs before connecting (register request handlers
 * there: the client must declare their capabilities in `options.capabilities`).
 */
export async function connectHttp(url: URL, options: ClientOptions = {}, setup?: (client: Client) => void): Promise<HttpClient> {
  const client = newClient(options);
  setup?.(client);
  const transport = new StreamableHTTPClientTransport(url, options.headers ? { requestInit: { headers: options.headers } } : {});
  if (options.tap) transport.onmessage = options.tap;
  await client.connect(transport);
  return { client, transport };
}

export interface StdioGateway {
  client: Client;
  /** Everything the gateway wrote on stderr so far. */
  stderr(): string;
  /** Errors the client's transport reported (a non-protocol line on stdout would be one). */
  errors: Error[];
  /** Closes the client: stdin ends, and the SDK waits for the gateway to exit (escalating after 2 s). */
  close(): Promise<void>;
  /** The gateway's process id. */
  pid: number | null;
}

/** Writes `json` as a config file in a fresh temp dir; returns its path and a cleanup. */
export function writeConfig(json: Record<string, unknown>): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "mcp-gateway-test-"));
  const path = join(dir, "mcp.config.json");
  writeFileSync(path, JSON.stringify(json, null, 2));
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `node bin/mcp-gateway.js stdio --config <path>` with an SDK client on its stdin/stdout. */
export async function connectStdio(configPath: string, options: ClientOptions = {}, setup?: (client: Client) => void): Promise<StdioGateway> {
  const client = newClient(options);
  setup?.(client);
  const errors: Error[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [GATEWAY_BIN, "stdio", "--config", configPath],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), LOG_LEVEL: "info", ...options.env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  client.onerror = (error) => errors.push(error);
  if (options.tap) transport.onmessage = options.tap;
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    errors,
    pid: transport.pid,
    close: () => client.close(),
  };
}

/** A promise with its resolve function (for waiting on a notification). */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolveIt!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolveIt = r));
  return { promise, resolve: resolveIt };
}

/** The text blocks of a tool result, joined. */
export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return content.flatMap((c) => (c.type === "text" && c.text !== undefined ? [c.text] : [])).join("\n");
}
