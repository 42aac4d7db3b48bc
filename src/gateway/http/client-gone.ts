import type { Context } from "hono";

interface NodeOutgoing {
  writableFinished: boolean;
  once(event: "close", listener: () => void): void;
  off(event: "close", listener: () => void): void;
}

/**
 * Calls `onGone` when the client disconnects before its response is complete, and returns a
 * disposer. On Node it watches the ServerResponse directly: reading `c.req.raw.signal` makes
 * the adapter build an AbortController per request, which is measurable on the hot path.
 */
export function whenClientGone(c: Context, onGone: () => void): () => void {
  const outgoing = (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
  if (outgoing) {
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
 * On Node, registers listeners for the end of this request's answer: its ServerResponse's 'close'
 * (written to the end, or the client gone). Undefined when the app runs without a Node server.
 */
export function answerWatch(c: Context): ((done: () => void) => void) | undefined {
  const outgoing = (c.env as { outgoing?: NodeOutgoing } | undefined)?.outgoing;
  return outgoing ? (done) => outgoing.once("close", done) : undefined;
}
