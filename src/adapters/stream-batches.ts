/**
 * A streamed answer's events in batches, one per read of the upstream body. Each async step an
 * event passes costs promises and microtasks (about 19 per event through the adapter, the retry
 * layer and the loop: docs/performance.md); passed as one batch per read, the adapter's and the
 * retry layer's steps are paid once per read instead of once per event.
 */
import type { StreamEvent } from "../core/index.ts";
import type { StreamTranslation } from "./types.ts";

/** The idle clock of a call (IdleAbort): it runs only while the call waits on the upstream. */
interface IdleClock {
  pause(): void;
  arm(): void;
}

/**
 * The translated events of each read, as a batch. The protocol's terminal event ends the reading
 * (`finished`); a body that ends before it gets the translation's `end()`. When a read fails to
 * translate halfway, what it translated before goes out first, as it did event by event.
 */
export async function* translatedBatches<T>(
  reads: AsyncIterable<T[]>,
  translation: StreamTranslation<T>,
  clock: IdleClock,
  /** What each event becomes on its way out (the client's tool names put back); as is without one. */
  map?: (event: StreamEvent) => StreamEvent,
): AsyncGenerator<StreamEvent[], void, undefined> {
  for await (const items of reads) {
    // The consumer's work on the batch is not the upstream's silence.
    clock.pause();
    const out: StreamEvent[] = [];
    try {
      for (const item of items) {
        for (const event of translation.push(item)) out.push(map ? map(event) : event);
        // Nothing more is read after the terminal event (the body's end is drained behind).
        if (translation.finished) break;
      }
    } catch (error) {
      if (out.length > 0) yield out;
      throw error;
    }
    if (out.length > 0) yield out;
    if (translation.finished) return;
    clock.arm();
  }
  const rest = map ? translation.end().map(map) : translation.end();
  if (rest.length > 0) yield rest;
}
