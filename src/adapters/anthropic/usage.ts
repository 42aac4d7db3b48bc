import { emptyUsage, type Usage } from "../../core/index.ts";

/** The usage fields shared by a Message's `usage` and a message_delta's cumulative `usage`. */
export interface WireUsageCounts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number | null } | null;
}

const number = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * Overlays the counts a usage object carries onto `base`. Stream usage is cumulative: message_delta
 * repeats the totals (output always, input and cache counts sometimes), so its numbers replace
 * message_start's and the fields it leaves out keep message_start's values. Anthropic's
 * `input_tokens` excludes cached tokens; the cache counts are reported beside it.
 */
export function applyUsage(base: Usage, usage: WireUsageCounts | null | undefined): Usage {
  const next: Usage = { ...base };
  if (number(usage?.input_tokens)) next.inputTokens = usage.input_tokens;
  if (number(usage?.output_tokens)) next.outputTokens = usage.output_tokens;
  if (number(usage?.cache_read_input_tokens)) next.cacheReadTokens = usage.cache_read_input_tokens;
  if (number(usage?.cache_creation_input_tokens)) next.cacheWriteTokens = usage.cache_creation_input_tokens;
  const thinking = usage?.output_tokens_details?.thinking_tokens;
  if (number(thinking)) next.reasoningTokens = thinking;
  return next;
}

/**
 * The neutral `inputTokens` counts every input token, cached or not (OpenAI's prompt_tokens
 * semantics); Anthropic reports cache reads and writes beside `input_tokens`, so they are added.
 */
export function withCachedInput(usage: Usage): Usage {
  return { ...usage, inputTokens: usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) };
}

export function fromUsage(usage: WireUsageCounts | null | undefined): Usage {
  return withCachedInput(applyUsage(emptyUsage(), usage));
}
