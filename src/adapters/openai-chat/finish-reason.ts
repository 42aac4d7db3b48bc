import type { StopReason } from "../../core/index.ts";

/**
 * Maps a Chat Completions `finish_reason` to the neutral stop reason.
 * Unknown or missing reasons (servers invent their own: `eos`, `end_turn`, null) count as a
 * normal stop. When the message carries tool calls, a plain stop counts as `tool_calls`: some
 * compatible servers (Gemini's OpenAI endpoint, several local servers) report "stop" for a
 * tool-calling turn, and the loop must still run the calls. A `length` stop is kept as is, since
 * tool-call arguments cut by the token limit are not safe to run blindly.
 */
export function toStopReason(finishReason: string | null | undefined, hasToolCalls: boolean): StopReason {
  switch (finishReason) {
    case "length":
      return "length";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_calls";
    default:
      return hasToolCalls ? "tool_calls" : "stop";
  }
}
