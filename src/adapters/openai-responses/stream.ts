import type { StreamEvent } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { StreamAssembler } from "./stream-state.ts";
import type { WireStreamEvent } from "./wire.ts";

/**
 * The Responses stream's events as neutral StreamEvents, ending with `usage` and `done`. Reading
 * stops at response.completed (or response.incomplete); a stream that ends before one was cut
 * short: without the terminal response there is no usage and no telling whether it was complete.
 */
export async function* toStreamEvents(events: AsyncIterable<WireStreamEvent>, provider: string, model: string): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new StreamAssembler(provider, model);
  for await (const event of events) {
    yield* assembler.handle(event);
    if (assembler.finished) return;
  }
  throw upstreamProtocolError(provider, "the stream ended before response.completed (cut off)");
}
