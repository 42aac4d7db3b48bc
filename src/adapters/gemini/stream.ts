/**
 * `streamGenerateContent?alt=sse`: each event's data is a response of its own (its parts are the
 * new output, its usage the totals so far), decoded with the shared SSE reader (../sse-events.ts,
 * eventsource-parser, a batch per read of the body). The stream has no closing sentinel: it is
 * complete when a chunk brought the finish reason (or the prompt was blocked) and the body ended.
 * A body that ends before that was cut off. An error object in the stream (Google sends one when
 * it fails mid-answer) is thrown as that error.
 */
import { upstreamProtocolError } from "../http-error.ts";
import { isJsonObject } from "../../core/json-object.ts";
import { sseBatches } from "../sse-events.ts";
import type { StreamTranslation } from "../types.ts";
import { ResponseAssembler } from "./assembler.ts";
import { errorOf } from "./errors.ts";
import type { WireChunk, WireResponse } from "./wire.ts";

/** The chunks of each read of the body, in one batch (an error object is a chunk of its own). */
export function responseChunkBatches(response: Response, signal: AbortSignal, provider: string): AsyncGenerator<WireChunk[]> {
  if (!response.body) throw upstreamProtocolError(provider, "the stream has no body");
  return sseBatches(response.body, signal, ({ data }): WireChunk | undefined => {
    if (data === "" || data.startsWith("[DONE]")) return undefined;
    const parsed: unknown = JSON.parse(data);
    const error = isJsonObject(parsed) && "error" in parsed ? errorOf(parsed) : undefined;
    if (error) return { error };
    if (!isJsonObject(parsed)) throw upstreamProtocolError(provider, `unexpected stream data: ${data.slice(0, 200)}`);
    return parsed as WireResponse;
  });
}

/**
 * The chunks as neutral StreamEvents; `end()`, once the body ended, closes the answer with `usage`
 * and `done`, or throws for one cut off before its finish reason. The body is read to its end
 * (`finished` stays false: nothing says the stream is over before then).
 */
export function streamTranslation(provider: string, model: string): StreamTranslation<WireChunk> {
  const assembler = new ResponseAssembler(provider, model);
  return {
    push: (chunk) => assembler.push(chunk),
    finished: false,
    end: () => {
      if (!assembler.ended) throw upstreamProtocolError(provider, "the stream ended before the answer's finish reason (cut off)");
      return assembler.finish();
    },
  };
}
