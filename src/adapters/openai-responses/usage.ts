import { emptyUsage, type Usage } from "../../core/index.ts";
import type { ResponseUsage } from "./wire.ts";

const number = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * Responses usage as neutral usage. `input_tokens` already counts the cached tokens (OpenAI's
 * prompt_tokens semantics, like the neutral model); optional counters are set only when reported
 * (a reported 0 says "no cache hit", which differs from "unknown").
 */
export function fromUsage(usage: Partial<ResponseUsage> | null | undefined): Usage {
  const result = emptyUsage();
  if (number(usage?.input_tokens)) result.inputTokens = usage.input_tokens;
  if (number(usage?.output_tokens)) result.outputTokens = usage.output_tokens;
  const cached = usage?.input_tokens_details?.cached_tokens;
  if (number(cached)) result.cacheReadTokens = cached;
  const written = usage?.input_tokens_details?.cache_write_tokens;
  if (number(written)) result.cacheWriteTokens = written;
  const reasoning = usage?.output_tokens_details?.reasoning_tokens;
  if (number(reasoning)) result.reasoningTokens = reasoning;
  return result;
}
