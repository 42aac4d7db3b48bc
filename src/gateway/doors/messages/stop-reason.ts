import type { StopReason } from "@anthropic-ai/sdk/resources/messages";
import type { LoopOutcome } from "../../../loop/index.ts";
import type { IsAnthropic } from "./answer-blocks.ts";

/** Anthropic's own reasons the neutral model folds into others: given back when Anthropic answered. */
const KEPT_FROM_ANTHROPIC = new Set<string>(["pause_turn", "model_context_window_exceeded", "refusal", "stop_sequence"]);

/**
 * The loop's stop reason as Anthropic's. Running out of turns reads as `max_tokens`, as the Chat
 * Completions door says `length`: the answer was cut short by a budget (the exact reason is in
 * `mcp_gateway.stop_reason` and the `x-mcp-gateway-stop-reason` header). When Anthropic itself
 * answered last with a reason the neutral model folds away (`pause_turn`: resend to let a long
 * server-tool turn go on), the client gets that one.
 */
export function toStopReason(outcome: LoopOutcome, isAnthropic: IsAnthropic = () => false): StopReason {
  if (outcome.stopReason === "client_tools") return "tool_use";
  const own = outcome.last.providerStopReason;
  if (outcome.stopReason !== "max_iterations" && own && KEPT_FROM_ANTHROPIC.has(own) && outcome.last.provider && isAnthropic(outcome.last.provider)) return own as StopReason;
  switch (outcome.stopReason) {
    case "length":
    case "max_iterations":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "stop":
    case "hook":
    case "cancelled":
      return outcome.last.stopSequence ? "stop_sequence" : "end_turn";
  }
}

/** The stop sequence that ended the answer, when that is why it stopped. */
export function stopSequenceOf(outcome: LoopOutcome, reason: StopReason): string | null {
  return reason === "stop_sequence" ? (outcome.last.stopSequence ?? null) : null;
}
