/**
 * The chunks of a streamed Chat Completions response (events decoded by ../sse-events.ts, a batch
 * per read of the body), with the openai SDK's semantics: `[DONE]` ends the stream (the body is
 * still read to its end, behind, so the connection goes back to the pool), an event whose JSON carries
 * `error` throws the SDK's APIError, and data that is not JSON throws.
 */
import { APIError, OpenAIError } from "openai/core/error";
import { sseBatches, type StreamedAnswer } from "../sse-events.ts";
import type { WireChunk } from "./wire-types.ts";

function parseChunk(data: string, response: StreamedAnswer): WireChunk {
  const chunk = JSON.parse(data) as WireChunk & { error?: unknown };
  // The headers only for an error: the transport builds them when first read.
  if (chunk && chunk.error) throw new APIError(undefined, chunk.error as object, undefined, response.headers);
  return chunk;
}

/**
 * What `data: [DONE]` decodes to: the answer is over. Its reader ends the answer there (./exchange.ts),
 * in the batch of the read that brought it, instead of one read later at the body's end; the
 * rest of the body (normally its end, in the same packet) is read behind, as after Anthropic's
 * message_stop, so the connection goes back to the pool.
 */
export const STREAM_DONE: unique symbol = Symbol("[DONE]");

export function sseChunkBatches(response: StreamedAnswer, signal: AbortSignal): AsyncGenerator<(WireChunk | typeof STREAM_DONE)[]> {
  if (!response.body) throw new OpenAIError("Attempted to iterate over a response with no body");
  let done = false;
  return sseBatches(
    response.body,
    signal,
    ({ data }) => {
      if (done) return undefined;
      if (data.startsWith("[DONE]")) {
        done = true;
        return STREAM_DONE;
      }
      return parseChunk(data, response);
    },
    { complete: () => done },
  );
}
