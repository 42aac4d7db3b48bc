/**
 * Gemini's `finishReason` in neutral (finish_reason) terms. A call the model got wrong
 * (`MALFORMED_FUNCTION_CALL`: it wrote a call that does not parse or does not fit a declared
 * function; `UNEXPECTED_TOOL_CALL`; `TOO_MANY_TOOL_CALLS`) has no answer to hand on: it is a
 * retryable error, so the gateway's retry policy asks again (Gemini samples afresh: the next
 * answer usually calls correctly), then the alias's fallbacks. Nothing is put in the history: a
 * made-up call with no real name or arguments would reach the client or come back to Gemini.
 */
import { GatewayError, type StopReason } from "../../core/index.ts";

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "LANGUAGE"]);

export const FAILED_CALL_REASONS = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]);

export function toStopReason(reason: string | undefined, blocked: boolean, hasCalls: boolean): StopReason {
  if (blocked || (reason !== undefined && FILTERED.has(reason))) return "content_filter";
  if (reason === "MAX_TOKENS") return "length";
  return hasCalls ? "tool_calls" : "stop";
}

/** The error for an answer that ended in a failed function call. */
export function failedCallError(provider: string, reason: string, finishMessage: string | undefined): GatewayError {
  const detail = finishMessage ? `: ${finishMessage.slice(0, 500)}` : "";
  return new GatewayError(`${provider}: the model's function call failed (finishReason ${reason})${detail}`, {
    status: 502,
    type: "api_error",
    code: reason.toLowerCase(),
    provider,
    retryable: true,
  });
}
