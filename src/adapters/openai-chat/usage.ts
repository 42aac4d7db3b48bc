import type { Usage } from "../../core/index.ts";
import type { WireUsage, WireUsageCarrier } from "./wire-types.ts";

/** The usage object of a response or chunk: standard `usage`, else Groq's `x_groq.usage`. */
export function findUsage(carrier: WireUsageCarrier): WireUsage | undefined {
  return carrier.usage ?? carrier.x_groq?.usage ?? undefined;
}

/**
 * Wire usage to neutral usage. Optional counters are set only when the provider reported them
 * (a reported 0 is kept: it says "no cache hit", which differs from "unknown").
 * `completion_tokens` is taken as reported; note xAI excludes reasoning tokens from it while
 * OpenAI includes them.
 */
export function toUsage(usage: WireUsage | undefined): Usage {
  const result: Usage = {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
  };
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? usage?.prompt_cache_hit_tokens;
  if (typeof cached === "number") result.cacheReadTokens = cached;
  const reasoning = usage?.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") result.reasoningTokens = reasoning;
  return result;
}
