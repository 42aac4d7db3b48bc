/**
 * `streamGenerateContent?alt=sse`: each event's data is a response of its own (its parts are the
 * new output, its usage the totals so far), decoded with the shared SSE reader (../sse-events.ts,
 * eventsource-parser). The stream has no closing sentinel: it is complete when a chunk brought the
 * finish reason (or the prompt was blocked) and the body ended. A body that ends before that was
 * cut off. An error object in the stream (Google sends one when it fails mid-answer) is thrown as
 * that error.
 */
import type { StreamEvent } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { isJsonObject } from "../json-object.ts";
import { sseEvents } from "../sse-events.ts";
import { ResponseAssembler } from "./assembler.ts";
import { errorOf } from "./errors.ts";
import type { WireChunk, WireResponse } from "./wire.ts";

export async function* responseChunks(response: Response, signal: AbortSignal, provider: string): AsyncGenerator<WireChunk> {
  if (!response.body) throw upstreamProtocolError(provider, "the stream has no body");
  for await (const { data } of sseEvents(response.body, signal)) {
    if (data === "" || data.startsWith("[DONE]")) continue;
    const parsed: unknown = JSON.parse(data);
    const error = isJsonObject(parsed) && "error" in parsed ? errorOf(parsed) : undefined;
    if (error) {
      yield { error };
      continue;
    }
    if (!isJsonObject(parsed)) throw upstreamProtocolError(provider, `unexpected stream data: ${data.slice(0, 200)}`);
    yield parsed as WireResponse;
  }
}

export async function* toStreamEvents(chunks: AsyncIterable<WireChunk>, provider: string, model: string): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new ResponseAssembler(provider, model);
  for await (const chunk of chunks) yield* assembler.push(chunk);
  if (!assembler.ended) throw upstreamProtocolError(provider, "the stream ended before the answer's finish reason (cut off)");
  yield* assembler.finish();
}
