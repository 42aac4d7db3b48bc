import type { StreamEvent } from "../../core/index.ts";
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
  return new AnthropicTranslation(provider, new StreamAssembler(provider));
}

/** A class rather than an object literal with a getter (one hidden class per call otherwise: ../upstream-http.ts). */
class AnthropicTranslation implements StreamTranslation<WireStreamEvent> {
  constructor(
    private readonly provider: string,
    private readonly assembler: StreamAssembler,
  ) {}

  push(event: WireStreamEvent): StreamEvent[] {
    return this.assembler.handle(event);
  }

  get finished(): boolean {
    return this.assembler.finished;
  }

  end(): StreamEvent[] {
    if (!this.assembler.hasStopReason) throw upstreamProtocolError(this.provider, "the stream ended before message_stop");
    return this.assembler.finish();
  }
}
