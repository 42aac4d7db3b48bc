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
 */
import { createParser } from "eventsource-parser";

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
 * Node stream (./upstream-http.ts), without wrapping one in the other (a web stream per call
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

export async function* sseEvents(body: ReadableStream<Uint8Array> | ByteSource, signal: AbortSignal, options: SseOptions = {}): AsyncGenerator<SseEvent> {
  const reader = "getReader" in body ? webSource(body) : body;
  const decoder = new TextDecoder();
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: ({ event, data }) => pending.push({ event, data }) });
  let ended = false;
  let lastText = "";
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) {
        ended = true;
        const tail = decoder.decode();
        if (tail !== "") lastText = tail;
        // A body ending in "\r" (which a next read could have turned into "\r\n") gets its line
        // end settled; an event without its blank line stays unterminated, as with the SDKs.
        parser.feed(lastText.endsWith("\r") ? `${tail}\n` : tail);
      } else {
        const text = decoder.decode(read.value, { stream: true });
        if (text !== "") lastText = text;
        parser.feed(text);
      }
      // Taken out first: the consumer may stop (return) at any yield.
      const ready = pending.splice(0);
      for (const event of ready) yield event;
      if (ended) return;
    }
  } catch (error) {
    if (signal.aborted) return;
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
