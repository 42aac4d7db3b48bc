import type { StopReason } from "../../core/index.ts";
import type { WireStopReason } from "./wire.ts";

/**
 * Anthropic's stop reasons in neutral (OpenAI finish_reason) terms. `pause_turn` (a server tool
 * paused a long turn) ends this call like a normal stop; unknown future reasons do too.
 */
export function toStopReason(reason: WireStopReason | string | null | undefined): StopReason {
  switch (reason) {
    case "tool_use":
      return "tool_calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content_filter";
    default:
      return "stop";
  }
}
