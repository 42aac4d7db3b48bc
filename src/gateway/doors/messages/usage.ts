import type { Usage } from "../../../core/index.ts";
import type { LoopOutcome } from "../../../loop/index.ts";

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** Anthropic counts cache reads and writes beside `input_tokens`; the neutral `inputTokens` includes them. */
export function toAnthropicUsage(usage: Usage): AnthropicUsage {
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.inputTokens - cacheRead - cacheWrite),
    output_tokens: usage.outputTokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

/**
 * The usage an Anthropic client reads as "how big is my context": the input (and cache) counts of
 * the last model call, which saw the whole conversation, and the output of every call. Summing the
 * input of the gateway's own turns would tell Claude Code its context is several times its size
 * (and compact it early); the sums are in `mcp_gateway.usage`.
 */
export function answerUsage(outcome: LoopOutcome): AnthropicUsage {
  return { ...toAnthropicUsage(outcome.last.usage), output_tokens: outcome.usage.outputTokens };
}
