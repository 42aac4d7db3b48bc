import type { StreamEvent } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { StreamAssembler } from "./stream-state.ts";
import type { WireStreamEvent } from "./wire.ts";

/**
 * Anthropic's raw stream events as neutral StreamEvents, ending with `usage` and `done`. Reading
 * stops at message_stop. A stream that ends earlier is an error, unless message_delta already
 * brought the stop reason: the SDK's SSE parser drops a final event whose closing blank line never
 * came, and message_stop carries nothing message_delta did not.
 */
export async function* toStreamEvents(
  events: AsyncIterable<WireStreamEvent>,
  provider: string,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new StreamAssembler(provider);
  for await (const event of events) {
    yield* assembler.handle(event);
    if (assembler.finished) return;
  }
  if (!assembler.hasStopReason) throw upstreamProtocolError(provider, "the stream ended before message_stop");
  yield* assembler.finish();
}
