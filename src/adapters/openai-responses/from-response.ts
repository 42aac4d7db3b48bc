import type { ChatResult } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { failedResponseError } from "./errors.ts";
import { isRefusal, itemContent } from "./result-items.ts";
import { toStopReason } from "./stop-reason.ts";
import { fromUsage } from "./usage.ts";
import type { Response, ResponseOutputItem } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

/** The fields of a response the result is made of; the terminal events of a stream carry the same. */
export type ResponseSummary = Pick<Response, "id" | "model" | "status" | "incomplete_details" | "usage">;

/** A response's result from its output items (the whole output, or the items a stream brought). */
export function toResult(response: ResponseSummary, output: readonly ResponseOutputItem[], origin: string, model: string): ChatResult {
  const content = flatMapped(output, (item) => itemContent(item, origin));
  const refused = output.some((item) => item.type === "message" && isRefusal(item));
  return {
    id: response.id ?? "",
    model: response.model || model,
    message: { role: "assistant", content },
    stopReason: toStopReason(response, content, refused),
    usage: fromUsage(response.usage),
  };
}

/** A non-streamed Response as a neutral ChatResult; a `failed` one is thrown as its error. */
export function fromResponse(response: Response, origin: string, model: string): ChatResult {
  if (!Array.isArray(response?.output)) throw upstreamProtocolError(origin, "the response has no output array");
  if (response.status === "failed") throw failedResponseError(origin, response.error);
  return toResult(response, response.output, origin, model);
}
