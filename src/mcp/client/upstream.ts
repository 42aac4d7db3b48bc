/**
 * The client side of one upstream MCP server, as the gateway's own MCP server
 * (src/gateway/mcp-server) uses it to forward requests and to receive what the server sends
 * back. Only src/mcp holds SDK `Client` objects: the gateway sees these two small interfaces.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AnyObjectSchema, AnySchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { ClientCapabilities, ClientNotification, ClientRequest, ClientResult, ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";

/** Any MCP request or notification: the gateway forwards methods it does not know itself. */
export interface UpstreamMessage {
  method: string;
  params?: Record<string, unknown>;
}

export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  /** Required: the gateway's callers each choose theirs (the server's timeoutMs, or none for forwarded requests that time out on silence). */
  timeoutMs: number;
}

/**
 * One ready session of an upstream server. A restarted server is a new session and gets a new
 * UpstreamClient, so its identity tells sessions apart (the hub's lists may have changed).
 */
export interface UpstreamClient {
  /** What the server declared at initialize. */
  readonly capabilities: ServerCapabilities;
  /** The server's `instructions` from initialize, if any. */
  readonly instructions: string | undefined;
  /** Sends a request and validates the result with `resultSchema`. */
  request<S extends AnySchema>(request: UpstreamMessage, resultSchema: S, options: UpstreamRequestOptions): Promise<SchemaOutput<S>>;
  notify(notification: UpstreamMessage): Promise<void>;
}

/**
 * Where PoolOptions.upstreamHandlers declares the client side the gateway offers a server and
 * handles what that server sends: called for each new session of the server, before it connects
 * (capabilities are sent in initialize; handlers must be there for the first message).
 */
export interface UpstreamHandlerRegistry {
  /** Client capabilities to declare (merged with what was declared before). */
  declareCapabilities(capabilities: ClientCapabilities): void;
  /** A server->client request (sampling, elicitation, roots); a thrown McpError becomes the error response. */
  onRequest<T extends AnyObjectSchema>(schema: T, handler: (request: SchemaOutput<T>, signal: AbortSignal) => ClientResult | Promise<ClientResult>): void;
  onNotification<T extends AnyObjectSchema>(schema: T, handler: (notification: SchemaOutput<T>) => void | Promise<void>): void;
}

/** Installs a server's handlers; see UpstreamHandlerRegistry. */
export type UpstreamHandlers = (server: string, registry: UpstreamHandlerRegistry) => void;

export function handlerRegistry(client: Client): UpstreamHandlerRegistry {
  return {
    declareCapabilities: (capabilities) => client.registerCapabilities(capabilities),
    onRequest: (schema, handler) => client.setRequestHandler(schema, (request, extra) => handler(request, extra.signal)),
    onNotification: (schema, handler) => client.setNotificationHandler(schema, handler),
  };
}

/** The UpstreamClient of a connected SDK client (read once: capabilities and instructions are fixed at initialize). */
export function upstreamClient(client: Client): UpstreamClient {
  return {
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    // The casts: the gateway forwards requests and notifications of any method, not only the ones the SDK types.
    request: (request, resultSchema, { signal, timeoutMs }) =>
      client.request(request as ClientRequest, resultSchema, { ...(signal ? { signal } : {}), timeout: timeoutMs }),
    notify: (notification) => client.notification(notification as ClientNotification),
  };
}
