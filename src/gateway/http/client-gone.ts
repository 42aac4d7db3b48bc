import type { Context } from "hono";
import { requestAbortController } from "../../core/abort-controller.ts";
import { GatewayError } from "../../core/index.ts";

/** What a request's work is aborted with when its client disconnects (status 499: nobody reads the answer). */
export function clientClosed(): GatewayError {
  return new GatewayError("the client closed the connection", { status: 499, type: "api_error", code: "client_closed" });
}

interface NodeOutgoing {
  writableFinished: boolean;
  /** Set once the connection is gone (its 'close' already emitted): a listener added now never runs. */
  destroyed: boolean;
  once(event: "close", listener: () => void): void;
  off(event: "close", listener: () => void): void;
}

/**
 * Calls `onGone` when the client disconnects before its response is complete, and returns a
 * disposer. On Node it watches the ServerResponse directly: reading `c.req.raw.signal` makes
 * the adapter build an AbortController per request, which is measurable on the hot path.
 */
export function whenClientGone(c: Context, onGone: () => void): () => void {
  const outgoing = outgoingOf(c);
  if (outgoing) {
    // Gone before the handler started (during a middleware's await): its 'close' is past.
    if (outgoing.destroyed) {
      if (!outgoing.writableFinished) onGone();
      return () => {};
    }
    const onClose = () => {
      if (!outgoing.writableFinished) onGone();
    };
    outgoing.once("close", onClose);
    return () => outgoing.off("close", onClose);
  }
  const signal = c.req.raw.signal;
  signal.addEventListener("abort", onGone, { once: true });
  return () => signal.removeEventListener("abort", onGone);
}

/**
 * An AbortController aborted with clientClosed() when the client disconnects before its answer is
 * complete (the request's work: upstream calls, MCP calls, retries), and the disposer of that watch.
 * A light one on Node 20 (src/core/abort-controller.ts).
 */
export function abortWhenClientGone(c: Context): { controller: AbortController; stopWatching: () => void } {
  const controller = requestAbortController();
  return { controller, stopWatching: whenClientGone(c, () => controller.abort(clientClosed())) };
}

/** Registers a listener for the end of a request's answer on the server. */
export type AnswerWatch = (done: () => void) => void;

/** The request's ServerResponse, on the gateway's Node server (none when the app runs in-process). */
function outgoingOf(c: Context): NodeOutgoing | undefined {
  return (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
}

/**
 * On Node, registers listeners for the end of this request's answer: its ServerResponse's 'close'
 * (written to the end, or the client gone); at once when the client is already gone, since its
 * 'close' was emitted while the request was being handled. Undefined without a Node server.
 */
export function answerWatch(c: Context): AnswerWatch | undefined {
  const outgoing = outgoingOf(c);
  if (!outgoing) return undefined;
  return (done) => {
    if (outgoing.destroyed) done();
    else outgoing.once("close", done);
  };
}
