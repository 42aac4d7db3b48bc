/**
 * The chunks of a streamed Chat Completions response, decoded with eventsource-parser.
 *
 * The SDK still makes the call (headers, auth, HTTP errors as its error classes); only the
 * decoding of the event stream is ours. openai 6.x, the last line that runs on Node 20, splits
 * events with a byte-by-byte loop and re-buffers each one through three decoders: a third of the
 * gateway's CPU on a long stream. The SDK's semantics are kept: `[DONE]` ends the stream, an
 * event whose JSON carries `error` throws the SDK's APIError, data that is not JSON throws, an
 * event left unterminated at the end is dropped, and an abort ends the iteration quietly (the
 * adapter asks its IdleAbort why).
 */
import { createParser } from "eventsource-parser";
import { APIError, OpenAIError } from "openai";
import type { WireChunk } from "./wire-types.ts";

function parseChunk(data: string, headers: Headers): WireChunk {
  const chunk = JSON.parse(data) as WireChunk & { error?: unknown };
  if (chunk && chunk.error) throw new APIError(undefined, chunk.error as object, undefined, headers);
  return chunk;
}

export async function* sseChunks(response: Response, signal: AbortSignal): AsyncGenerator<WireChunk> {
  if (!response.body) throw new OpenAIError("Attempted to iterate over a response with no body");
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const pending: string[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (event) => {
      if (done) return;
      if (event.data.startsWith("[DONE]")) done = true;
      else pending.push(event.data);
    },
  });
  let ended = false;
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) {
        ended = true;
        // A final line end settles a body that ends in "\r" (which a next read could have
        // turned into "\r\n"); an event without its blank line still stays unterminated.
        if (!done) parser.feed(`${decoder.decode()}\n`);
        break;
      }
      // After [DONE] the body is still read to its end (as the SDK does), so the connection
      // goes back to the pool instead of being cut.
      if (done) continue;
      parser.feed(decoder.decode(read.value, { stream: true }));
      // Taken out first: the consumer may stop (return) at any yield.
      const ready = pending.splice(0);
      for (const data of ready) yield parseChunk(data, response.headers);
    }
    for (const data of pending.splice(0)) yield parseChunk(data, response.headers);
  } catch (error) {
    if (signal.aborted) return;
    throw error;
  } finally {
    // Stopped early or failed: the rest of the body is not wanted (closes the upstream socket).
    if (!ended) void reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
