import type { ReasoningEffort, ReasoningOptions } from "../../core/index.ts";
import type { MessageParam, ThinkingConfigEnabled } from "./wire.ts";

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

/** OpenAI-style effort as a thinking budget in tokens. */
export const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 1024,
  low: 1024,
  medium: 4096,
  high: 16384,
  xhigh: 24576,
  max: 32768,
};

/** The thinking budget asked for, if any: an explicit budget wins over effort; 0 means no thinking. */
export function thinkingBudget(reasoning: ReasoningOptions | undefined): number | undefined {
  const budget = reasoning?.budgetTokens ?? (reasoning?.effort ? BUDGET_BY_EFFORT[reasoning.effort] : undefined);
  if (budget === undefined || budget <= 0) return undefined;
  return Math.max(MIN_THINKING_BUDGET, Math.floor(budget));
}

export function thinkingConfig(budget: number): ThinkingConfigEnabled {
  return { type: "enabled", budget_tokens: budget };
}

/**
 * Thinking tokens count toward `max_tokens`, which must exceed the budget. When it does not, the
 * budget is added on top, so the answer keeps the room the caller asked for.
 */
export function maxTokensWithThinking(maxTokens: number, budget: number): number {
  return maxTokens > budget ? maxTokens : budget + maxTokens;
}

function firstBlockType(message: MessageParam | undefined): string | undefined {
  if (message === undefined) return undefined;
  return typeof message.content === "string" ? "text" : message.content[0]?.type;
}

/**
 * Mid tool loop (the last user turn carries tool results), Anthropic requires the assistant turn
 * before it to start with its thinking block while thinking is on ("Expected `thinking` or
 * `redacted_thinking`, but found `tool_use`…"). When that turn has none — another provider made
 * it, or thinking was off then — thinking has to stay off for this request, as Anthropic advises.
 */
export function canThink(messages: MessageParam[]): boolean {
  const last = messages.at(-1);
  const previous = messages.at(-2);
  if (last?.role !== "user" || previous?.role !== "assistant") return true;
  if (firstBlockType(last) !== "tool_result") return true;
  const first = firstBlockType(previous);
  return first === "thinking" || first === "redacted_thinking";
}
