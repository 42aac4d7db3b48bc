import type { AssistantContent, StopReason } from "../../core/index.ts";

/** What the stop reason is read from: a response's status and why it is incomplete. */
export interface Ending {
  status?: string | null | undefined;
  incomplete_details?: { reason?: string | null | undefined } | null | undefined;
}

/**
 * A Responses outcome in neutral (finish_reason) terms. The Responses API has no stop reason of
 * its own: an `incomplete` response says why, and a response that calls tools is otherwise just
 * `completed`. A call cut off by the token limit stays `length`: its arguments are not safe to
 * run blindly. A refusal counts as filtered, as with Chat Completions.
 */
export function toStopReason(ending: Ending, content: readonly AssistantContent[], refused: boolean): StopReason {
  if (ending.status === "incomplete") {
    const reason = ending.incomplete_details?.reason;
    if (reason === "max_output_tokens") return "length";
    if (reason === "content_filter") return "content_filter";
  }
  if (content.some((block) => block.type === "tool_call")) return "tool_calls";
  return refused ? "content_filter" : "stop";
}
