/**
 * The events of a streamed Responses call (decoded by ../sse-events.ts, a batch per read of the
 * body). Every event is read here and handed on as parsed JSON; what an `error` event or a failed
 * response means is the stream assembler's business. Once a terminal event is out the consumer
 * stops reading (nothing after it is decoded); the body's end is still read then, so the
 * connection goes back to the pool.
 */
import { OpenAIError } from "openai/core/error";
import { isJsonObject } from "../../core/json-object.ts";
import { sseBatches, type StreamedAnswer } from "../sse-events.ts";
import type { WireStreamEvent } from "./wire.ts";

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed", "error"]);

export function responseStreamBatches(response: StreamedAnswer, signal: AbortSignal): AsyncGenerator<WireStreamEvent[]> {
  if (!response.body) throw new OpenAIError("Attempted to iterate over a response with no body");
  let finished = false;
  return sseBatches(
    response.body,
    signal,
    ({ event, data }) => {
      // Compatible servers may end with Chat Completions' sentinel; an event without data says nothing.
      if (finished || data === "" || data.startsWith("[DONE]")) return undefined;
      const parsed: unknown = JSON.parse(data);
      if (!isJsonObject(parsed)) throw new OpenAIError(`unexpected stream event: ${data.slice(0, 200)}`);
      // The event name is the type; a server that names an error only there still reports an error.
      const typed = typeof parsed["type"] === "string" ? parsed : { ...parsed, type: event ?? "" };
      finished = TERMINAL.has(typed["type"] as string);
      return typed as unknown as WireStreamEvent;
    },
    { complete: () => finished },
  );
}
