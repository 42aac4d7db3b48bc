import { AssemblerTranslation } from "../assembler-translation.ts";
import { upstreamProtocolError } from "../http-error.ts";
import type { StreamTranslation } from "../types.ts";
import { StreamAssembler } from "./stream-state.ts";
import type { WireStreamEvent } from "./wire.ts";

/**
 * Anthropic's raw stream events as neutral StreamEvents, ending with `usage` and `done`. Reading
 * stops at message_stop (`finished`). A stream that ends earlier is an error, unless message_delta
 * already brought the stop reason: the SDK's SSE parser drops a final event whose closing blank
 * line never came, and message_stop carries nothing message_delta did not.
 */
export function streamTranslation(provider: string): StreamTranslation<WireStreamEvent> {
  const assembler = new StreamAssembler(provider);
  return new AssemblerTranslation(assembler, () => {
    if (!assembler.hasStopReason) throw upstreamProtocolError(provider, "the stream ended before message_stop");
    return assembler.finish();
  });
}
