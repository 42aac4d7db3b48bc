/**
 * The chunks of a streamed Chat Completions response (events decoded by ../sse-events.ts), with
 * the openai SDK's semantics: `[DONE]` ends the stream (the body is still read to its end, so the
 * connection goes back to the pool), an event whose JSON carries `error` throws the SDK's
 * APIError, and data that is not JSON throws.
 */
import { APIError, OpenAIError } from "openai";
import { sseEvents, type StreamedAnswer } from "../sse-events.ts";
import type { WireChunk } from "./wire-types.ts";

function parseChunk(data: string, headers: Headers): WireChunk {
  const chunk = JSON.parse(data) as WireChunk & { error?: unknown };
  if (chunk && chunk.error) throw new APIError(undefined, chunk.error as object, undefined, headers);
  return chunk;
}

/** An idle clock to stop while the consumer, not the upstream, has the chunk (../idle-abort.ts). */
export interface IdleClock {
  pause(): void;
  arm(): void;
}

export async function* sseChunks(response: StreamedAnswer, signal: AbortSignal, idle?: IdleClock): AsyncGenerator<WireChunk> {
  if (!response.body) throw new OpenAIError("Attempted to iterate over a response with no body");
  let done = false;
  for await (const { data } of sseEvents(response.body, signal)) {
    if (done) continue;
    if (data.startsWith("[DONE]")) done = true;
    else {
      const chunk = parseChunk(data, response.headers);
      // Here rather than in a generator of its own around this one: one async hop less per chunk.
      idle?.pause();
      yield chunk;
      idle?.arm();
    }
  }
}
