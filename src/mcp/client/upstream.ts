/**
 * The client side of one upstream MCP server, as the gateway's own MCP server
 * (src/gateway/mcp-server) uses it to forward requests and to receive what the server sends
 * back. Only src/mcp holds SDK `Client` objects: the gateway sees these two small interfaces.
 */
import { isInputRequiredResult } from "@modelcontextprotocol/client";
import { nativeSignal } from "../../core/abort-controller.ts";
import { instrumentMcpRequest, type McpCallReporter } from "./instrument.ts";
import type { CallToolRequest, Client, ClientCapabilities, ClientContext, NotificationMethod, NotificationTypeMap, RequestMethod, RequestTypeMap, ResultTypeMap, ServerCapabilities, StandardSchemaV1, Tool } from "@modelcontextprotocol/client";

/** Any MCP request or notification: the gateway forwards methods it does not know itself. */
export interface UpstreamMessage {
  method: string;
  params?: Record<string, unknown>;
}

export interface UpstreamRequestOptions {
  signal?: AbortSignal;
  /** Required: the gateway's callers each choose theirs (the server's timeoutMs, or none for forwarded requests that time out on silence). */
  timeoutMs: number;
  /**
   * 2026-07-28 servers: an InputRequiredResult is returned as it came (for a 2026-07-28 client to
   * answer), instead of being answered through the gateway's handlers.
   */
  allowInputRequired?: boolean;
}

/** The output type of a result schema (any Standard Schema, such as the spec's Zod schemas in @modelcontextprotocol/core). */
export type SchemaOutput<S extends StandardSchemaV1> = StandardSchemaV1.InferOutput<S>;

/**
 * One ready session of an upstream server. A restarted server is a new session and gets a new
 * UpstreamClient, so its identity tells sessions apart (the hub's lists may have changed).
 */
export interface UpstreamClient {
  /** What the server declared at initialize. */
  readonly capabilities: ServerCapabilities;
  /** The server's `instructions` from initialize, if any. */
  readonly instructions: string | undefined;
  /** The protocol era spoken with it: "legacy" (2025-11-25 and before) or "modern" (2026-07-28). */
  readonly era: "legacy" | "modern";
  /** Sends a request and validates the result with `resultSchema`. */
  request<S extends StandardSchemaV1>(request: UpstreamMessage, resultSchema: S, options: UpstreamRequestOptions): Promise<SchemaOutput<S>>;
  notify(notification: UpstreamMessage): Promise<void>;
}

/** The server->client requests the gateway relays (sampling, elicitation, roots). */
export type RelayedRequestMethod = Extract<RequestMethod, "sampling/createMessage" | "elicitation/create" | "roots/list">;
/** The server->client notifications the gateway handles. */
export type RelayedNotificationMethod = Extract<
  NotificationMethod,
  | "notifications/progress"
  | "notifications/message"
  | "notifications/resources/updated"
  | "notifications/resources/list_changed"
  | "notifications/prompts/list_changed"
  | "notifications/elicitation/complete"
>;

/**
 * Where PoolOptions.upstreamHandlers declares the client side the gateway offers a server and
 * handles what that server sends: called for each new session of the server, before it connects
 * (capabilities are sent in initialize; handlers must be there for the first message).
 */
export interface UpstreamHandlerRegistry {
  /** Client capabilities to declare (merged with what was declared before). */
  declareCapabilities(capabilities: ClientCapabilities): void;
  /** A server->client request (sampling, elicitation, roots); a thrown error with a JSON-RPC `code` becomes the error response. */
  onRequest<M extends RelayedRequestMethod>(method: M, handler: (request: RequestTypeMap[M], signal: AbortSignal) => ResultTypeMap[M] | Promise<ResultTypeMap[M]>): void;
  onNotification<M extends RelayedNotificationMethod>(method: M, handler: (notification: NotificationTypeMap[M]) => void | Promise<void>): void;
}

/** Installs a server's handlers; see UpstreamHandlerRegistry. */
export type UpstreamHandlers = (server: string, registry: UpstreamHandlerRegistry) => void;

export function handlerRegistry(client: Client): UpstreamHandlerRegistry {
  return {
    declareCapabilities: (capabilities) => client.registerCapabilities(capabilities),
    onRequest: (method, handler) =>
      client.setRequestHandler(method, ((request: never, ctx: ClientContext) => handler(request, ctx.mcpReq.signal)) as never),
    onNotification: (method, handler) => client.setNotificationHandler(method, handler as never),
  };
}

/**
 * The UpstreamClient of a connected SDK client (read once: capabilities and instructions are fixed
 * at initialize). `tools`: the server's current tool list (see callMirrored). Every request is
 * timed for `observed.report` and traced (instrument.ts).
 */
export function upstreamClient(client: Client, tools: () => readonly Tool[], observed: { server: string; report?: McpCallReporter }): UpstreamClient {
  const era = client.getProtocolEra() === "modern" ? "modern" : "legacy";
  const toolNamed = toolIndex(tools);
  // The casts: the gateway forwards requests and notifications of any method, not only the ones the SDK types.
  // The SDK links a request's signal to its transport's (AbortSignal.any): Node's own signal.
  const send: UpstreamClient["request"] = (request, resultSchema, { signal, timeoutMs, allowInputRequired }) =>
    client.request(request as never, resultSchema, { ...(signal ? { signal: nativeSignal(signal) } : {}), timeout: timeoutMs, ...(allowInputRequired ? { allowInputRequired } : {}) }) as Promise<never>;
  return {
    capabilities: client.getServerCapabilities() ?? {},
    instructions: client.getInstructions(),
    era,
    request: (request, resultSchema, options) =>
      instrumentMcpRequest(observed.server, request.method, request.params, observed.report, (params) => {
        const sent = params === undefined ? { method: request.method } : { method: request.method, params };
        const tool = era === "modern" && request.method === "tools/call" ? toolNamed(String(params?.name)) : undefined;
        return tool ? callMirrored(client, tool, sent, resultSchema, options) : send(sent, resultSchema, options);
      }),
    notify: (notification) => client.notification(notification as never),
  };
}

/** Looks tools up by name, in whichever list `tools()` holds now (indexed once per list). */
function toolIndex(tools: () => readonly Tool[]): (name: string) => Tool | undefined {
  let indexed: readonly Tool[] | undefined;
  let byName = new Map<string, Tool>();
  return (name) => {
    const list = tools();
    if (list !== indexed) {
      indexed = list;
      byName = new Map(list.map((tool) => [tool.name, tool]));
    }
    return byName.get(name);
  };
}

/**
 * A forwarded `tools/call` to a 2026-07-28 server, through the SDK's callTool: only callTool
 * mirrors the arguments the tool's inputSchema marks `x-mcp-header` into the `Mcp-Param-*`
 * headers the server checks (SEP-2243), and it does so from the definition given. That
 * definition carries no outputSchema: results go to the gateway's client as they came (the
 * client validates them), so the SDK must not refuse one on the gateway's side.
 */
async function callMirrored<S extends StandardSchemaV1>(client: Client, tool: Tool, request: UpstreamMessage, resultSchema: S, options: UpstreamRequestOptions): Promise<SchemaOutput<S>> {
  const { signal, timeoutMs, allowInputRequired } = options;
  const result = await client.callTool(request.params as CallToolRequest["params"], {
    toolDefinition: { name: tool.name, inputSchema: tool.inputSchema },
    ...(signal ? { signal: nativeSignal(signal) } : {}),
    timeout: timeoutMs,
    ...(allowInputRequired ? { allowInputRequired } : {}),
  });
  // An InputRequiredResult the caller asked for is its to pass on, as client.request returns it.
  if (isInputRequiredResult(result)) return result as SchemaOutput<S>;
  const outcome = await resultSchema["~standard"].validate(result);
  if (outcome.issues) throw new Error(`Invalid result for tools/call: ${outcome.issues.map((issue) => issue.message).join("; ")}`);
  return outcome.value as SchemaOutput<S>;
}
