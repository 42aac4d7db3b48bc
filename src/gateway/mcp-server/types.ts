import type { LoggingLevel, Server, ServerCapabilities, ServerContext } from "@modelcontextprotocol/server";
import type { KeyPolicy, ServerConfig } from "../../core/config/index.ts";
import type { UpstreamClient } from "../../mcp/pool.ts";

/** What a downstream request handler gets from the SDK (abort signal, related sends, _meta). */
export type RequestExtra = ServerContext;

/** A connected upstream MCP server, in config order. */
export interface Upstream {
  name: string;
  /** Namespace of its tools and prompts (`<name>__` unless configured). */
  prefix: string;
  client: UpstreamClient;
  capabilities: ServerCapabilities;
  /** Per-request timeout for this server. */
  timeoutMs: number;
  config: ServerConfig;
}

/** One connected MCP client of the gateway: the stdio client, or one Streamable HTTP session. */
export interface DownstreamSession {
  readonly id: string;
  readonly server: Server;
  /** "stdio": the gateway's only client; "http": one of possibly many /mcp sessions. */
  readonly kind: "stdio" | "http";
  /** Whether this client's roots are relayed to upstream servers (stdio; HTTP with gateway.forwardRoots). */
  readonly relayRoots: boolean;
  /** True once the client sent `notifications/initialized`. */
  initialized: boolean;
  /** Set by `logging/setLevel`: log messages below it are not sent to this client. */
  logLevel: LoggingLevel | undefined;
  /** Increases with every request (diagnostics). */
  lastActive: number;
  /** Resource URIs this client subscribed to. */
  readonly subscriptions: Set<string>;
  /** The gateway key that opened the session, when it has a policy: the session sees only what the key may use. */
  readonly key?: KeyPolicy | undefined;
  /**
   * Called (and awaited, before the answer goes out) after a client request changed what the
   * session keeps — its log level, its subscriptions: an HTTP session saves its record in the
   * shared store, so that the next request finds it on any instance.
   */
  onStateChange?: (() => Promise<void>) | undefined;
}
