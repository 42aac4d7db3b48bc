/**
 * The events of a server-sent-events response body, decoded with eventsource-parser (the SSE
 * parser of the Vercel AI SDK, linear in its input). The provider SDKs still make the calls
 * (headers, auth, HTTP errors as their error classes); only the decoding of the event stream is
 * ours: the SDK lines that run on Node 20 (openai 6.x, @anthropic-ai/sdk 1.x) split events with a
 * byte-by-byte loop and re-buffer each one through three decoders, about a third of the gateway's
 * CPU on a long stream.
 *
 * As with the SDKs: an event left without its closing blank line at the end is dropped, an abort
 * of `signal` ends the iteration quietly (the adapters ask their IdleAbort why), and a consumer
 * that stops early cancels the rest of the body — unless the stream was complete (see
 * SseOptions.complete).
 *
 * The events come in batches, one per read of the body, each event already decoded by the
 * protocol's `decode`: a consumer pays one async step per read instead of one per event (each
 * async generator layer an event passes costs a promise and a microtask; a burst of 200 tokens
 * often arrives in one read).
 */
import { createParser } from "eventsource-parser";
import { Utf8Decoder } from "../core/utf8-decoder.ts";

export interface SseEvent {
  /** The `event:` field, when the event has one. */
  event: string | undefined;
  data: string;
}

/** How long the rest of a finished stream is read before the body is cut after all. */
export const DRAIN_MS = 1000;

export interface SseOptions {
  /**
   * Whether the protocol says the stream is complete (Anthropic's message_stop). When the
   * consumer stops then, the rest of the body (normally just its end) is read in the background
   * for up to DRAIN_MS, so the connection goes back to the pool instead of being cut: a new TLS
   * connection per streamed call otherwise.
   */
  complete?: () => boolean;
}

/**
 * The bytes of a body, read one chunk at a time: a web ReadableStream (fetch), or the transport's
 * own reader (./streamed-answer.ts), without wrapping one in the other (a web stream per call
 * costs more than the decoding of a short answer).
 */
export interface ByteSource {
  read(): Promise<IteratorResult<Uint8Array, unknown>>;
  /** Stops reading and lets the body go (closes the connection when it has not ended). */
  cancel(): void;
  /** Lets go of the body (after its end, or after cancel). */
  release(): void;
}

/** A streamed answer: a fetch Response, or the transport's OpenStream (./upstream-http.ts). */
export interface StreamedAnswer {
  readonly body: ReadableStream<Uint8Array> | ByteSource | null;
  readonly headers: Headers;
}

function webSource(body: ReadableStream<Uint8Array>): ByteSource {
  const reader = body.getReader();
  return {
    read: () => reader.read() as Promise<IteratorResult<Uint8Array, unknown>>,
    cancel: () => void reader.cancel().catch(() => undefined),
    release: () => reader.releaseLock(),
  };
}

/** Reads what is left of a finished body, then lets go; cuts it if it does not end soon. */
async function drain(reader: ByteSource): Promise<void> {
  const cut = setTimeout(() => reader.cancel(), DRAIN_MS);
  cut.unref();
  try {
    while (!(await reader.read()).done);
  } catch {
    // cut, or failed: either way nothing more to do
  } finally {
    clearTimeout(cut);
    reader.release();
  }
}

/**
 * What `decode` made of the events of each read (undefined: the event is skipped), in order. When
 * `decode` throws, the batch decoded before it is yielded first and the error follows at the next
 * step, as if the events had come one by one.
 */
export async function* sseBatches<T>(
  body: ReadableStream<Uint8Array> | ByteSource,
  signal: AbortSignal,
  decode: (event: SseEvent) => T | undefined,
  options: SseOptions = {},
): AsyncGenerator<T[]> {
  const reader = "getReader" in body ? webSource(body) : body;
  const decoder = new Utf8Decoder();
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: ({ event, data }) => pending.push({ event, data }) });
  let ended = false;
  let lastText = "";
  let failure: { error: unknown } | undefined;
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) {
        ended = true;
        const tail = decoder.end();
        if (tail !== "") lastText = tail;
        // A body ending in "\r" (which a next read could have turned into "\r\n") gets its line
        // end settled; an event without its blank line stays unterminated, as with the SDKs.
        parser.feed(lastText.endsWith("\r") ? `${tail}\n` : tail);
      } else {
        const text = decoder.write(read.value);
        if (text !== "") lastText = text;
        parser.feed(text);
      }
      // Taken out first: the consumer may stop (return) at any yield.
      const ready = pending.splice(0);
      const batch: T[] = [];
      for (const event of ready) {
        try {
          const decoded = decode(event);
          if (decoded !== undefined) batch.push(decoded);
        } catch (error) {
          failure = { error };
          break;
        }
      }
      if (batch.length > 0) yield batch;
      if (failure) throw failure.error;
      if (ended) return;
    }
  } catch (error) {
    // A read cut by the abort ends quietly; what the protocol's decoding refused never does.
    if (signal.aborted && error !== failure?.error) return;
    throw error;
  } finally {
    if (ended) reader.release();
    else if (options.complete?.() && !signal.aborted) {
      // Usually the end is already here (same read as the last event): wait for it briefly so
      // the connection is free for a call that follows at once; else it is drained behind.
      await Promise.race([drain(reader), new Promise((resolve) => setImmediate(resolve))]);
    }
    else {
      // Stopped early or failed: the rest is not wanted (closes the upstream socket, which
      // also stops the upstream generating).
      reader.cancel();
      reader.release();
    }
  }
}
