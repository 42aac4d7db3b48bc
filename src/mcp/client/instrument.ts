/**
 * What every MCP request the gateway sends an upstream server goes through: the agent loop's
 * tool calls (connection.ts) and whatever the gateway's MCP server forwards or asks itself
 * (upstream.ts: tools/call from /mcp, resources, prompts, completion, lists, logging/setLevel).
 * Each is timed for the owner's report (mcp_client_operation_duration_seconds) and, with tracing
 * on, run in a CLIENT span whose context goes to the server in `params._meta`. With tracing off
 * it costs two clock reads and the report.
 */
import type { TraceCarrier } from "../../core/request-context.ts";
import { errorType, traceMcpRequest, tracingOn } from "../../core/tracing.ts";

/** One MCP request to an upstream server, as reported to the gateway (its metrics). */
export interface McpCallReport {
  server: string;
  method: string;
  /** The tool's name (the server's), for tools/call. */
  tool?: string;
  ms: number;
  /** `error.type` when it failed (`tool_error` for an error result, the JSON-RPC code for an error response). */
  error?: string;
}

export type McpCallReporter = (report: McpCallReport) => void;

type Params = Record<string, unknown> | undefined;

/** The span's target (`{method} {target}`) and attributes, by the MCP semantic conventions. */
function describe(server: string, method: string, params: Params): { target: string | undefined; attributes: Record<string, string> } {
  const attributes: Record<string, string> = { "mcp_gateway.mcp_server": server };
  const name = typeof params?.name === "string" ? params.name : undefined;
  if (method === "tools/call" && name !== undefined) {
    attributes["gen_ai.tool.name"] = name;
    return { target: name, attributes };
  }
  if (method === "prompts/get" && name !== undefined) {
    attributes["gen_ai.prompt.name"] = name;
    return { target: name, attributes };
  }
  if (typeof params?.uri === "string") attributes["mcp.resource.uri"] = params.uri;
  return { target: undefined, attributes };
}

/**
 * `params` with the trace context in `_meta`. The request's span (tracing on) replaces a
 * traceparent forwarded from the gateway's client, as the span is in the client's trace; with
 * tracing off the HTTP request's traceparent only fills in for one the MCP client did not send.
 */
function withTrace(params: Params, trace: Record<string, string>): Params {
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!tracingOn() && meta?.traceparent !== undefined) return params;
  return { ...params, _meta: { ...meta, ...trace } };
}

/**
 * Runs `send` (the request to `server`) timed and, with tracing on, in its span: `send` gets the
 * params with the trace context merged into `_meta` (withTrace), the caller's other entries kept.
 * `incoming` is the client's trace context when the caller has it at hand (a door's tool calls).
 */
export async function instrumentMcpRequest<T>(
  server: string,
  method: string,
  params: Params,
  report: McpCallReporter | undefined,
  send: (params: Params) => Promise<T>,
  incoming?: TraceCarrier,
): Promise<T> {
  const { target, attributes } = describe(server, method, params);
  const started = performance.now();
  let failure: string | undefined;
  try {
    const result = await traceMcpRequest(method, target, attributes, (trace) => send(trace ? withTrace(params, trace) : params), incoming);
    if ((result as { isError?: unknown } | null)?.isError === true) failure = "tool_error";
    return result;
  } catch (error) {
    failure = errorType(error);
    throw error;
  } finally {
    report?.({ server, method, ...(attributes["gen_ai.tool.name"] ? { tool: attributes["gen_ai.tool.name"] } : {}), ms: performance.now() - started, ...(failure === undefined ? {} : { error: failure }) });
  }
}
