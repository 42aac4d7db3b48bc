import type { StreamEvent } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import type { StreamTranslation } from "../types.ts";
import { StreamAssembler } from "./stream-state.ts";
import type { WireStreamEvent } from "./wire.ts";

/**
 * The Responses stream's events as neutral StreamEvents, ending with `usage` and `done`. Reading
 * stops at response.completed (or response.incomplete): `finished`. A stream that ends before one
 * was cut short: without the terminal response there is no usage and no telling whether it was
 * complete.
 */
export function streamTranslation(provider: string, model: string): StreamTranslation<WireStreamEvent> {
  return new ResponsesTranslation(provider, new StreamAssembler(provider, model));
}

/** A class rather than an object literal with a getter (one hidden class per call otherwise: ../upstream-http.ts). */
class ResponsesTranslation implements StreamTranslation<WireStreamEvent> {
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
    throw upstreamProtocolError(this.provider, "the stream ended before response.completed (cut off)");
  }
}
