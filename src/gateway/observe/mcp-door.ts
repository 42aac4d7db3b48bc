/**
 * The gateway as an MCP server, observed: each `tools/call` a client sends (over /mcp or stdio,
 * the `chat` tool included) is timed in `mcp_server_operation_duration_seconds` and, when tracing
 * is on, runs in a SERVER span `tools/call {tool}` (the MCP semantic conventions) that continues
 * the trace of the client's `params._meta.traceparent` — what an MCP client that traces sends, as
 * the gateway does to its own upstream servers; the call forwarded upstream runs in a CLIENT span
 * under it (src/mcp/client/instrument.ts), whose context goes in its `_meta`, so the upstream
 * server's spans are its descendants. A failure is the thrown error's type, or
 * `tool_error` for an error result.
 */
import { context, propagation, SpanKind, type Span } from "@opentelemetry/api";
import { errorType, gatewayTracer, runInSpan, traceContextOf, tracingOn } from "../../core/tracing.ts";
import type { ToolCallObserver } from "../mcp-server/hub.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { ATTR, OPERATION } from "./names.ts";

const METHOD = "tools/call";

/** `_meta` as a trace-context carrier: its string entries. */
const META_GETTER = {
  keys: (meta: Record<string, unknown>) => Object.keys(meta),
  get: (meta: Record<string, unknown>, key: string) => (typeof meta[key] === "string" ? meta[key] : undefined),
};

/** The observer the MCP hub runs its clients' tool calls through (a tracer provider may be registered later: asked per call). */
export function mcpDoorObserver(metrics: GatewayMetrics | undefined): ToolCallObserver {
  return async ({ name, meta }, serve) => {
    const started = performance.now();
    let failure: string | undefined;
    try {
      const span = tracingOn() ? startSpan(name, meta) : undefined;
      // The span's own context goes upstream in `_meta`: the upstream server's spans are its children.
      const result = span ? await runInSpan(span, () => serve(traceContextOf(span))) : await serve();
      if (result.isError === true) failure = "tool_error";
      return result;
    } catch (error) {
      failure = errorType(error);
      throw error;
    } finally {
      metrics?.mcpServerDuration.observe(metrics.bound({ mcp_method_name: METHOD, gen_ai_tool_name: name, ...(failure ? { error_type: failure } : {}) }), (performance.now() - started) / 1000);
    }
  };
}

function startSpan(name: string, meta: Record<string, unknown> | undefined): Span {
  const parent = meta ? propagation.extract(context.active(), meta, META_GETTER) : context.active();
  return gatewayTracer().startSpan(
    `${METHOD} ${name}`,
    { kind: SpanKind.SERVER, attributes: { [ATTR.MCP_METHOD_NAME]: METHOD, [ATTR.GEN_AI_TOOL_NAME]: name, [ATTR.GEN_AI_OPERATION_NAME]: OPERATION.EXECUTE_TOOL } },
    parent,
  );
}
