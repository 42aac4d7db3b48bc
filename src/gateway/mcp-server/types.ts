import type { ClientCapabilities, LoggingLevel, Server, ServerCapabilities, ServerContext } from "@modelcontextprotocol/server";
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

/**
 * What a 2026-07-28 client's request carries for its upstream server when that server is of the
 * 2026-07-28 era too: the answers and requestState of a retry, and the client's capabilities.
 */
export interface ModernInput {
  inputResponses?: Record<string, unknown> | undefined;
  requestState?: string | undefined;
  capabilities?: ClientCapabilities | undefined;
}

/** A server-to-client request (sampling, elicitation, roots), as the gateway relays it. */
export interface ClientRequest {
  method: string;
  params?: Record<string, unknown> | undefined;
}

/**
 * One connected MCP client of the gateway: the stdio client, one Streamable HTTP session, or one
 * request of a 2026-07-28 client ("modern": it lives as long as the request's exchange, every
 * round of it).
 */
export interface DownstreamSession {
  readonly id: string;
  /** The SDK server answering it (for a modern exchange, the one of its first round). */
  readonly server: Server;
  /** "stdio": the gateway's only client; "http": one of possibly many /mcp sessions; "modern": one 2026-07-28 request. */
  readonly kind: "stdio" | "http" | "modern";
  /**
   * The 2026-07-28 era's way to ask the client: the request becomes an input request of the
   * exchange's next InputRequiredResult, and resolves with the client's answer on its retry.
   * Undefined for 2025-11-25 clients (the request is sent to them).
   */
  readonly ask?: ((request: ClientRequest) => Promise<unknown>) | undefined;
  /** What a 2026-07-28 client said it can do, with its request (a 2025 client said it at initialize). */
  readonly capabilities?: ClientCapabilities | undefined;
  /** A 2026-07-28 request's multi-round material, for a 2026-07-28 upstream server (see Forwarding.modern). */
  readonly upstreamInput?: ModernInput | undefined;
  /** Whether this client's roots are relayed to upstream servers (stdio; HTTP with gateway.forwardRoots). */
  readonly relayRoots: boolean;
  /** True once the client sent `notifications/initialized`. */
  initialized: boolean;
  /** Set by `logging/setLevel` (2026-07-28: the request's logLevel): log messages below it are not sent to this client. */
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
