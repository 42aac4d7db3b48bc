/**
 * Streaming for every front door: loop events written as SSE frames by the door's writer.
 *
 * Headers are committed only once the client would see something (or tools start running):
 * a failure before that — bad upstream key, unknown model at the provider — is still answered
 * as a proper HTTP error. Later failures end the stream the way the door's protocol ends a
 * failed stream (an error chunk, an `event: error`, `response.failed`). Pull-based, so a slow
 * client slows the loop instead of growing a buffer, and a client that goes away cancels the
 * stream, which aborts the loop.
 *
 * The frames are made in ./sse-frames.ts. This file writes them as a web ReadableStream: the
 * sink when the app is not served by our Node server (`app.request()`, `app.fetch()` in
 * process). On our Node server they go to the ServerResponse directly
 * (src/gateway/http/direct-sse.ts): a ReadableStream costs Node 20 about 13 µs in
 * `makeTransferable` alone, plus the encoding and a promise per chunk read.
 */
import type { GatewayError } from "../../core/index.ts";
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { SseFrames } from "./sse-frames.ts";

/** How one door writes a streamed answer. Each method returns the frames to send ("" for none). */
export interface SseWriter {
  /** Sent when the response commits: the opening chunk, `message_start`, `response.created`. */
  open(): string;
  event(event: LoopEvent): string;
  /** Ends a finished answer. */
  finish(outcome: LoopOutcome): string;
  /** Ends an answer that failed after the response committed. */
  fail(error: GatewayError): string;
  /** Written while nothing else is (tools running), so proxies and clients keep the connection. */
  readonly heartbeat: string;
  /** The whole answer the stream amounts to, for doors that store it (built once, before `finish`). */
  result?(outcome: LoopOutcome): unknown;
  /** That answer's JSON, when the writer makes it anyway (stored as is instead of serialized again). */
  resultJson?(outcome: LoopOutcome): string;
}

/**
 * A streamed answer's headers: the SSE ones, then the request's (its id, warnings). No
 * `connection` header: Node sets it from the client's request and the server's state, and an
 * explicit `keep-alive` made it keep a connection the client asked to close (or that a draining
 * server meant to close).
 */
export function sseHeaders(headers: Record<string, string>): Record<string, string> {
  return { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers };
}

const encoder = new TextEncoder();

/** The frames as the body of a web Response: what an app not on our Node server sends. */
export function streamResponse(frames: SseFrames, headers: Record<string, string>): Response {
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      frames.keepAlive((frame) => stream.enqueue(encoder.encode(frame)));
    },
    // Called again once the reader has taken the last chunk: one burst per chunk.
    async pull(stream) {
      const burst = await frames.next();
      if (burst !== "") stream.enqueue(encoder.encode(burst));
      if (frames.ended) {
        // Before the close: a reader that reaches the end finds the stream's end handled.
        frames.settle();
        stream.close();
      }
    },
    cancel(reason) {
      frames.cancel(reason);
    },
  });
  return new Response(body, { status: 200, headers: sseHeaders(headers) });
}
