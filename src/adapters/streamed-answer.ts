/**
 * A streamed answer read with undici's `dispatch` and a handler of our own that is also the
 * body's reader (a ByteSource): the chunks of one read of the socket are handed to the waiting
 * read together, and chunks that came while the reader was busy make its next read.
 *
 * Why not undici's `request` and its Readable: each chunk then went through the Readable's
 * buffer, its `nextTick`s and an async iterator's promise, and every stream built the Readable,
 * an AsyncResource and their listeners. Here a read is one promise, and the chunks that came
 * while the reader was busy make one read (one batch of events for the adapters).
 *
 * Failures keep the shapes `request` gave, so the transport maps them as before: before the head,
 * undici's own error (or the signal's reason when the caller aborted) rejects `openStream`; after
 * it, a read rejects with what stopped the body, which the transport reports as fetch would.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { Dispatcher } from "undici";
import { AbortableHandler, abortReason } from "./abortable-handler.ts";
import type { ByteSource } from "./sse-events.ts";

/** A stream's head (status and headers) and its body, to be read once the head is in. */
export interface StreamHead {
  status: number;
  headers: IncomingHttpHeaders;
  body: ByteSource;
}

/** Queued bytes above which the socket is paused until the reader catches up. */
const HIGH_WATER_MARK = 64 * 1024;

const DONE: IteratorResult<Uint8Array, unknown> = { done: true, value: undefined };

interface Waiting {
  resolve(result: IteratorResult<Uint8Array, unknown>): void;
  reject(error: unknown): void;
}

class StreamedAnswerHandler extends AbortableHandler implements ByteSource {
  private headed = false;
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failed: { error: unknown } | undefined;
  private waiting: Waiting | undefined;
  /** A delivery to the waiting read is scheduled (see onResponseData). */
  private delivering = false;

  constructor(
    private readonly head: { resolve(head: StreamHead): void; reject(error: unknown): void },
    signal: AbortSignal | undefined,
    private readonly failure: (error: unknown) => unknown,
  ) {
    super(signal);
  }

  // --- undici's side ---

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    // 1xx (informational) heads are not the answer's.
    if (status < 200) return;
    this.headed = true;
    this.head.resolve({ status, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.queue.push(chunk);
    this.queued += chunk.length;
    // A waiting read gets the chunk once undici has parsed the rest of the socket's read: the
    // events of one read make one batch (one write to the client), as with a Readable.
    if (this.waiting && !this.delivering) {
      this.delivering = true;
      queueMicrotask(this.deliver);
    }
    if (this.queued >= HIGH_WATER_MARK) controller.pause();
  }

  onResponseEnd(): void {
    this.stopListening();
    this.ended = true;
    if (this.delivering) return;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(DONE);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.stopListening();
    if (!this.headed) {
      this.head.reject(error);
      return;
    }
    // What came before the failure is dropped, as a destroyed Readable drops its buffer: after an
    // abort (the client gone, the idle clock, the deadline) no more events go on.
    this.queue = [];
    this.queued = 0;
    // After cancel() the body's failure is the cancel's.
    if (!this.failed) this.fail(this.failure(error));
  }

  // --- the reader's side (ByteSource) ---

  read(): Promise<IteratorResult<Uint8Array, unknown>> {
    if (this.queue.length > 0) return Promise.resolve({ done: false, value: this.takeQueued() });
    if (this.failed) return Promise.reject(this.failed.error);
    if (this.ended) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** Stops reading: the connection is closed when the body has not ended (undici aborts the request). */
  cancel(): void {
    this.queue = [];
    this.queued = 0;
    if (this.ended || this.failed) return;
    const cancelled = new Error("the stream was cancelled");
    this.fail(this.failure(cancelled));
    this.stopListening();
    this.controller?.abort(cancelled);
  }

  release(): void {}

  /** Hands what is queued to the waiting read (or the end, or the failure, when nothing is). */
  private readonly deliver = (): void => {
    this.delivering = false;
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    if (this.queue.length > 0) waiting.resolve({ done: false, value: this.takeQueued() });
    else if (this.failed) waiting.reject(this.failed.error);
    else if (this.ended) waiting.resolve(DONE);
    else this.waiting = waiting;
  };

  /** Everything queued, as one chunk. */
  private takeQueued(): Buffer {
    const chunks = this.queue;
    const chunk = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.queued);
    this.queue = [];
    this.queued = 0;
    if (this.controller?.paused) this.controller.resume();
    return chunk;
  }

  private fail(error: unknown): void {
    this.failed = { error };
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }
}

/**
 * Sends `options` on `dispatcher`; resolves once the answer's head is in, with its body to read.
 * `failure` maps what stops the body once it is open (the transport makes it look like fetch's).
 */
export function openStream(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignal | undefined, failure: (error: unknown) => unknown): Promise<StreamHead> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) reject(abortReason(signal));
    else dispatcher.dispatch(options, new StreamedAnswerHandler({ resolve, reject }, signal, failure));
  });
}
