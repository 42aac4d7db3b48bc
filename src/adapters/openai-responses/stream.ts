import { AssemblerTranslation } from "../assembler-translation.ts";
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
  return new AssemblerTranslation(new StreamAssembler(provider, model), () => {
    throw upstreamProtocolError(provider, "the stream ended before response.completed (cut off)");
  });
}
