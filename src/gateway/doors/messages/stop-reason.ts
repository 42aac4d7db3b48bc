import type { StopReason } from "@anthropic-ai/sdk/resources/messages";
import type { LoopOutcome } from "../../../loop/index.ts";

/**
 * The loop's stop reason as Anthropic's. Running out of turns reads as `max_tokens`, as the Chat
 * Completions door says `length`: the answer was cut short by a budget (the exact reason is in
 * `mcp_gateway.stop_reason` and the `x-mcp-gateway-stop-reason` header).
 */
export function toStopReason(outcome: LoopOutcome): StopReason {
  switch (outcome.stopReason) {
    case "client_tools":
      return "tool_use";
    case "length":
    case "max_iterations":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "stop":
    case "hook":
      return outcome.last.stopSequence ? "stop_sequence" : "end_turn";
  }
}
