/**
 * The gateway's traces, through `@opentelemetry/api` only: every layer may use it (the MCP client
 * puts the trace context in its requests' `_meta`), none needs the SDK. With no SDK registered
 * (the default) `tracingOn()` is false and nothing here allocates: the callers skip their spans.
 * The SDK and its exporter are started by the gateway when the OTEL_* variables ask for it
 * (src/gateway/observe/otel-sdk.ts), or by whoever embeds the gateway and registers a provider.
 */
import { incomingTraceContext, type TraceCarrier } from "./request-context.ts";
import { context, propagation, ProxyTracerProvider, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";

export const TRACER_NAME = "mcp-gateway";

/** What the API's tracer provider delegates to while no SDK is registered. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();

/** True when a tracer provider (an SDK) is registered: spans are worth making. Two calls, no allocation. */
export function tracingOn(): boolean {
  const provider = trace.getTracerProvider() as Partial<ProxyTracerProvider>;
  return provider.getDelegate ? provider.getDelegate() !== NOOP_PROVIDER : true;
}

/** The gateway's tracer (the registered provider's; asked each time, so a provider registered later is used). */
export function gatewayTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** OpenTelemetry's `error.type` for a failure: the error's code, else its HTTP status, else its class name. */
export function errorType(error: unknown): string {
  const { code, status } = (error ?? {}) as { code?: unknown; status?: unknown };
  if (typeof code === "string" && code !== "") return code;
  if (typeof code === "number") return String(code);
  if (typeof status === "number") return String(status);
  return error instanceof Error ? error.name : "_OTHER";
}

/** Ends a span as failed with this error (recorded as an exception event, `error.type` set). */
export function failSpan(span: Span, error: unknown, type = errorType(error)): void {
  span.setAttribute("error.type", type);
  span.recordException(error instanceof Error ? error : String(error));
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

/**
 * Runs `work` with `span` active (under `parent`, default the active context) and ends the span:
 * failed when `work` throws (`error.type` the error's), or when it answers an error result
 * (`isError: true`, an MCP tool's failure: `error.type` `tool_error`).
 */
export async function runInSpan<T>(span: Span, work: () => Promise<T>, parent: Context = context.active()): Promise<T> {
  try {
    const result = await context.with(trace.setSpan(parent, span), work);
    if ((result as { isError?: unknown } | null)?.isError === true) {
      span.setAttribute("error.type", "tool_error");
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The W3C trace context entries (traceparent, tracestate) that make `span` the parent elsewhere. */
export function traceContextOf(span: Span, parent: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), carrier);
  return carrier;
}

/**
 * Runs an MCP request to an upstream server in a CLIENT span named `{method} {target}` (the MCP
 * semantic conventions), child of the active span, and hands `run` the `_meta` entries that carry
 * the trace context (`traceparent`, `tracestate`) so that a server that traces joins the trace.
 * A `tools/call` whose result is an error result is a failed span (`error.type` `tool_error`).
 * With tracing off, no span: `run` gets the trace context the request's client sent, if any
 * (`incoming`, given by the caller that has it, else the request context's: request-context.ts),
 * so that the server still joins the client's trace.
 */
export async function traceMcpRequest<T>(
  method: string,
  target: string | undefined,
  attributes: Attributes,
  run: (meta: Record<string, string> | undefined) => Promise<T>,
  incoming?: TraceCarrier,
): Promise<T> {
  if (!tracingOn()) return run(incoming ?? incomingTraceContext());
  const span = gatewayTracer().startSpan(target ? `${method} ${target}` : method, { kind: SpanKind.CLIENT, attributes: { "mcp.method.name": method, ...attributes } });
  const meta = traceContextOf(span);
  return runInSpan(span, () => run(meta));
}
