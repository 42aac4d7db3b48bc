/**
 * What OpenAI-compatible servers actually send back, typed leniently. The SDK's own response
 * types describe api.openai.com; compatible servers omit fields (Mistral sends tool calls without
 * `index`/`type`, Azure sends chunks without choices) and add others (DeepSeek's
 * `reasoning_content`, Groq's `reasoning` and `x_groq`). Every field is optional here so the
 * translation code has to handle its absence. The SDK's ChatCompletion and ChatCompletionChunk
 * are assignable to these types.
 */

export interface WireUsage {
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
  completion_tokens_details?: { reasoning_tokens?: number | null } | null;
  /** DeepSeek's name for cached prompt tokens. */
  prompt_cache_hit_tokens?: number | null;
}

/** A tool call of a message, or one fragment of it in a stream delta. */
export interface WireToolCall {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: string | null } | null;
}

/** Content as an array of parts (Mistral magistral and a few others). */
export interface WireContentPart {
  type?: string;
  text?: string;
  /** Mistral's Magistral: `{ type: "thinking", thinking: [{ type: "text", text }] }`. */
  thinking?: WireContentPart[] | string;
}

/** The fields a response message and a stream delta share. */
export interface WireMessageFields {
  content?: string | WireContentPart[] | null;
  refusal?: string | null;
  /** DeepSeek, xAI, Qwen (DashScope). */
  reasoning_content?: string | null;
  /** Groq, Cerebras, OpenRouter. */
  reasoning?: string | null;
  tool_calls?: WireToolCall[] | null;
}

export interface WireChoice {
  index?: number | null;
  message?: WireMessageFields | null;
  finish_reason?: string | null;
}

export interface WireChunkChoice {
  index?: number | null;
  delta?: WireMessageFields | null;
  finish_reason?: string | null;
}

/** Top-level fields that carry usage: standard `usage`, and Groq's `x_groq.usage`. */
export interface WireUsageCarrier {
  usage?: WireUsage | null;
  x_groq?: { usage?: WireUsage | null } | null;
}

export interface WireCompletion extends WireUsageCarrier {
  id?: string | null;
  model?: string | null;
  choices?: WireChoice[] | null;
}

export interface WireChunk extends WireUsageCarrier {
  id?: string | null;
  model?: string | null;
  choices?: WireChunkChoice[] | null;
}

/** The choice the gateway uses: index 0 (the gateway never asks for `n > 1`). */
export function firstChoice<T extends { index?: number | null }>(choices: T[] | null | undefined): T | undefined {
  return choices?.find((choice) => (choice.index ?? 0) === 0);
}
