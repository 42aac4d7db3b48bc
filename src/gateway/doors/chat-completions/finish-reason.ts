import type { LoopStopReason } from "../../../loop/index.ts";

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/**
 * The loop's stop reason as an OpenAI finish_reason. Running out of turns is reported as
 * `length` (the answer was cut short by a budget); the exact reason is in the
 * `x-mcp-gateway-stop-reason` header / `mcp_gateway.stop_reason` field.
 */
export function toFinishReason(reason: LoopStopReason): FinishReason {
  switch (reason) {
    case "client_tools":
      return "tool_calls";
    case "max_iterations":
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "stop":
    case "hook":
    case "cancelled":
      return "stop";
  }
}
