import { emptyUsage, type Usage } from "../../core/index.ts";
import type { WireUsage } from "./wire.ts";

const number = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * Gemini's `usageMetadata` as neutral usage. `promptTokenCount` already counts cached tokens
 * (reported beside it as `cachedContentTokenCount`); tokens of server-side tool results
 * (`toolUsePromptTokenCount`) are input too. `candidatesTokenCount` leaves the thoughts out, which
 * Gemini bills as output (`thoughtsTokenCount`): output is their sum, as the neutral model counts
 * reasoning there. In a stream every chunk repeats the totals so far; the last one counts.
 */
export function fromUsage(usage: WireUsage | undefined): Usage {
  const result = emptyUsage();
  if (!usage) return result;
  const prompt = number(usage.promptTokenCount) ? usage.promptTokenCount : 0;
  const toolUse = number(usage.toolUsePromptTokenCount) ? usage.toolUsePromptTokenCount : 0;
  const candidates = number(usage.candidatesTokenCount) ? usage.candidatesTokenCount : 0;
  const thoughts = number(usage.thoughtsTokenCount) ? usage.thoughtsTokenCount : undefined;
  result.inputTokens = prompt + toolUse;
  result.outputTokens = candidates + (thoughts ?? 0);
  if (thoughts !== undefined) result.reasoningTokens = thoughts;
  if (number(usage.cachedContentTokenCount)) result.cacheReadTokens = usage.cachedContentTokenCount;
  return result;
}
