/**
 * Builds the MCP SDK transport for one configured server. Streamable HTTP servers that turn
 * out to be legacy SSE servers are retried over SSE, as the MCP spec's backwards-compatibility
 * section recommends.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { RemoteServerConfig, ServerConfig, StdioServerConfig } from "../../core/config/index.ts";

export interface OpenedTransport {
  transport: Transport;
  /** The stdio child's stderr, when there is one. */
  stderr?: NodeJS.ReadableStream | null;
  /** The child process id, when there is one. */
  pid?: () => number | null;
  /** The transport actually used ("http" may end up "sse"). */
  kind: "stdio" | "http" | "sse";
}

export function stdioTransport(config: StdioServerConfig): OpenedTransport {
  const transport = new StdioClientTransport({
    command: config.command,
    args: config.args,
    // Claude Desktop semantics: a minimal inherited environment plus the server's own env.
    env: { ...getDefaultEnvironment(), ...config.env },
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    stderr: "pipe",
  });
  return { transport, stderr: transport.stderr as NodeJS.ReadableStream | null, pid: () => transport.pid, kind: "stdio" };
}

function remoteInit(config: RemoteServerConfig): RequestInit {
  return { headers: config.headers };
}

/**
 * Connects `client` to the server. For `http`, tries Streamable HTTP first and falls back to
 * SSE when the server answers the initialize POST with a 4xx (what legacy servers do).
 */
export async function connectClient(client: Client, config: ServerConfig, timeoutMs: number): Promise<OpenedTransport> {
  if (config.transport === "stdio") {
    const opened = stdioTransport(config);
    await client.connect(opened.transport, { timeout: timeoutMs });
    return opened;
  }
  const url = new URL(config.url);
  if (config.transport === "sse") {
    const transport = new SSEClientTransport(url, { requestInit: remoteInit(config) });
    await client.connect(transport, { timeout: timeoutMs });
    return { transport, kind: "sse" };
  }
  const transport = new StreamableHTTPClientTransport(url, { requestInit: remoteInit(config) });
  try {
    await client.connect(transport, { timeout: timeoutMs });
    return { transport, kind: "http" };
  } catch (error) {
    if (!looksLikeLegacySse(error)) throw error;
    await transport.close().catch(() => undefined);
    const sse = new SSEClientTransport(url, { requestInit: remoteInit(config) });
    await client.connect(sse, { timeout: timeoutMs });
    return { transport: sse, kind: "sse" };
  }
}

function looksLikeLegacySse(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "number" && code >= 400 && code < 500 && code !== 401 && code !== 403;
}
