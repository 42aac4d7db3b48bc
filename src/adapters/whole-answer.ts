/**
 * A whole (non-streamed) answer read with undici's `dispatch` and a handler of our own: the
 * status, the headers and the body's bytes, handed over once the body has ended.
 *
 * Why not undici's `request`: for an answer that is read whole anyway, it builds an
 * AsyncResource handler, a Node Readable for the body and a consumer of that Readable, which
 * cost about ten `process.nextTick`s, a `setImmediate` and a few promises per call
 * (docs/performance.md). Here the chunks go into an array and the answer is one promise.
 *
 * Failures keep the shapes `request` gave, so the transport maps them as before: before the
 * headers, undici's own error (or the signal's reason when the caller aborted); while the body is
 * read, a `BodyFailure` carrying the status and headers already in.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";
import { isRedirect } from "../core/redirects.ts";
import { AbortableHandler, abortReason } from "./abortable-handler.ts";

/** A whole answer: its status, its headers as undici parses them, its body's bytes. */
export interface WholeAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The body stopped before its end: `cause` is what stopped it; the answer's head is known. */
export class BodyFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
  ) {
    super("the answer's body failed");
  }
}

type Resolve = (answer: WholeAnswer) => void;
type Reject = (error: unknown) => void;

class WholeAnswerHandler extends AbortableHandler {
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly resolve: Resolve,
    private readonly reject: Reject,
    signal: AbortSignal | undefined,
  ) {
    super(signal);
  }

  onResponseStart(controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // 1xx (informational) heads are not the answer's.
    if (status < 200) return;
    this.status = status;
    this.headers = headers;
    // A redirect to follow is its head: its body is not waited for (it may never end), and its
    // connection is let go, as fetch lets it go.
    if (isRedirect(status) && headers.location !== undefined) {
      this.stopListening();
      this.resolve({ status, headers, body: Buffer.alloc(0) });
      controller.abort(new Error("redirect followed"));
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.stopListening();
    const { chunks } = this;
    this.resolve({ status: this.status, headers: this.headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.stopListening();
    this.reject(this.status === 0 ? error : new BodyFailure(error, this.status, this.headers));
  }
}

/** Sends `options` on `dispatcher` and reads the whole answer. */
export function wholeAnswer(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal | undefined): Promise<WholeAnswer> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) reject(abortReason(signal));
    else dispatcher.dispatch(options, new WholeAnswerHandler(resolve, reject, signal));
  });
}
