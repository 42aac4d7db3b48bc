/**
 * The request a piece of work belongs to, carried by the async context (AsyncLocalStorage): while
 * a request runs inside it, every log line written for that request's work — in the loop, an
 * adapter, the MCP client, a store — carries its id without each caller passing it (the logger's
 * mixin reads it). Work started for no request (a server's restart, a timer) has none. With
 * tracing off it also carries the client's W3C trace context, which the MCP client passes on to
 * upstream servers in `_meta` (src/core/tracing.ts).
 *
 * On Node 20 entering it turns on a promise hook for the whole process, a measured 10–30% of the
 * CPU per request, so the HTTP app enters it only at debug and trace level, and on /mcp for a
 * client's trace context (src/gateway/http/app.ts, requestContext). At info level the lines a
 * request writes name its id themselves.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** W3C trace context entries (`traceparent`, and `tracestate` with it). */
export type TraceCarrier = Record<string, string>;

interface RequestContext {
  id: string;
  trace: TraceCarrier | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` (and everything it starts) as part of request `id`, with the client's trace context if any. */
export function withRequestId<T>(id: string, work: () => T, trace?: TraceCarrier): T {
  return storage.run({ id, trace }, work);
}

/**
 * `work` bound to the current request, if any: for work that a caller outside the request starts
 * later on its behalf (a stream's next burst, pulled by the code that writes it to the socket).
 */
export function inCurrentRequest<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R {
  const store = storage.getStore();
  return store ? (...args: A) => storage.run(store, work, ...args) : work;
}

/** The id of the request the current work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.id;
}

/** The trace context the current request's client sent (kept only while tracing is off). */
export function incomingTraceContext(): TraceCarrier | undefined {
  return storage.getStore()?.trace;
}

/** version-traceid-parentid-flags, lowercase hex (W3C Trace Context level 1). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
/** The spec's limit for tracestate is 32 members; a sane header fits in this. */
const MAX_TRACESTATE = 512;

/**
 * A client's `traceparent` (and `tracestate`) as it may be passed on: a well-formed traceparent
 * only (not version ff, no all-zero ids), so that a client cannot put arbitrary text in the
 * requests the gateway sends its MCP servers.
 */
export function traceCarrierFrom(traceparent: string | undefined, tracestate: string | undefined): TraceCarrier | undefined {
  const match = traceparent === undefined ? null : TRACEPARENT.exec(traceparent.trim());
  if (!match || match[1] === "ff" || /^0+$/.test(match[2]!) || /^0+$/.test(match[3]!)) return undefined;
  const state = tracestate?.trim();
  return { traceparent: match[0], ...(state && state.length <= MAX_TRACESTATE ? { tracestate: state } : {}) };
}
