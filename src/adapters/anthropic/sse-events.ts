/**
 * The raw events of a streamed Messages response (decoded by ../sse-events.ts, a batch per read
 * of the body), with the Anthropic SDK's semantics: `ping` and unnamed events are skipped, an
 * `error` event throws the SDK's APIError with the error's type, events without data are skipped,
 * and data that is not JSON throws. After message_stop the consumer stops reading (nothing after
 * it is decoded) and the body's end is still read, so the connection is reused.
 */
import { AnthropicError, APIError } from "@anthropic-ai/sdk/core/error";
import type { ErrorType } from "@anthropic-ai/sdk/resources/shared";
import { sseBatches, type StreamedAnswer } from "../sse-events.ts";
import type { WireStreamEvent } from "./wire.ts";

function errorBody(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return data;
  }
}

export function messageStreamBatches(response: StreamedAnswer, signal: AbortSignal): AsyncGenerator<WireStreamEvent[]> {
  if (!response.body) throw new AnthropicError("Attempted to iterate over a response with no body");
  // Once message_stop is out the consumer stops reading; the body's end is still read then.
  let stopped = false;
  return sseBatches(
    response.body,
    signal,
    ({ event, data }) => {
      if (stopped || event === undefined || event === "ping") return undefined;
      if (event === "error") {
        const body = errorBody(data);
        const type = (body as { error?: { type?: ErrorType } } | undefined)?.error?.type;
        // The headers only for an error: the transport builds them when first read.
        throw new APIError(undefined, body as object, undefined, response.headers, type);
      }
      if (!data) return undefined;
      const parsed = JSON.parse(data) as WireStreamEvent;
      stopped = parsed.type === "message_stop";
      return parsed;
    },
    { complete: () => stopped },
  );
}
