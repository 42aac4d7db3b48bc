/**
 * How each upstream protocol's providers refuse a conversation longer than the model's context
 * window, as data: the error codes and message texts (as the providers send them). An error that
 * matches is marked `contextOverflow`, and the loop compacts the conversation and tries once more
 * instead of failing the request.
 */
import type { ContextOverflow } from "../core/index.ts";

export type OverflowProtocol = "openai" | "openai-responses" | "anthropic" | "gemini";

interface OverflowSigns {
  /** Statuses such a refusal comes with. */
  statuses: number[];
  codes: string[];
  texts: RegExp[];
}

/** OpenAI and the servers that speak its Chat Completions protocol. */
const OPENAI_TEXTS = [
  // OpenAI: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages."
  // vLLM, DeepSeek, Groq, OpenRouter ("This endpoint's maximum context length is …") word it the same way.
  /maximum context length is \d+/i,
  /reduce the length of the messages/i,
  // OpenAI (newer models): "Your input exceeds the context window of this model. Please adjust your input and try again."
  /exceeds the context window/i,
  // llama.cpp server: "the request exceeds the available context size, try increasing it" (type exceed_context_size_error).
  /exceeds the available context size/i,
  // Mistral: "Prompt contains 40012 tokens and 0 draft tokens, too large for model with 32768 maximum context length".
  /too large for model with \d+ maximum context length/i,
  // xAI: "This model's maximum prompt length is 131072 but the request contains 150310 tokens."
  /maximum prompt length is \d+/i,
  // Zhipu GLM (code 1261): "Prompt exceeds max length".
  /prompt exceeds max length/i,
  // Ollama's OpenAI endpoint, LM Studio and others.
  /context (?:length|window) (?:exceeded|is exceeded)/i,
  /prompt is too long/i,
];

export const CONTEXT_OVERFLOW: Record<OverflowProtocol, OverflowSigns> = {
  openai: { statuses: [400, 413, 422], codes: ["context_length_exceeded", "exceed_context_size_error", "1261"], texts: OPENAI_TEXTS },
  "openai-responses": {
    statuses: [400, 413],
    // A `response.failed` (or an `error` event) with this code; over HTTP as the Chat Completions error.
    codes: ["context_length_exceeded"],
    texts: OPENAI_TEXTS,
  },
  anthropic: {
    statuses: [400, 413],
    // 413 request_too_large: the request is over the API's byte limit (a long history with images).
    codes: ["request_too_large"],
    texts: [
      // "prompt is too long: 208310 tokens > 200000 maximum"
      /prompt is too long/i,
      // "input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input length or `max_tokens` and try again"
      /input length and `?max_tokens`? exceed context limit/i,
      /exceeds? (?:the )?(?:model's )?context window/i,
    ],
  },
  gemini: {
    statuses: [400],
    codes: [],
    texts: [
      // "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."
      /input token count.*exceeds the maximum number of tokens/i,
      /exceeds the maximum number of tokens allowed/i,
    ],
  },
};

/**
 * The window and the refused request's size where the text says them, in the provider's own
 * tokens: "maximum context length is 8192 tokens. However, your messages resulted in 9000"
 * (OpenAI and its followers), "9000 tokens > 8192 maximum" and "195000 + 8192 > 200000"
 * (Anthropic), "token count (9000) exceeds … allowed (8192)" (Gemini), "maximum prompt length is
 * 8192 but the request contains 9000" (xAI), "Prompt contains 9000 tokens … 8192 maximum context
 * length" (Mistral). With them the retry is cut to fit instead of by a guess.
 */
const NUMBERS: { window: RegExp; tokens?: RegExp }[] = [
  { window: /maximum (?:context|prompt) length is (\d+)/i, tokens: /(?:resulted in|contains) (\d+) tokens/i },
  { window: /(\d+) maximum context length/i, tokens: /contains (\d+) tokens/i },
  { window: /> (\d+)(?: maximum)?\b/, tokens: /(?:too long: |limit: )(\d+)/i },
  { window: /allowed \((\d+)\)/i, tokens: /token count \((\d+)\)/i },
];

function numbers(message: string): ContextOverflow {
  for (const { window, tokens } of NUMBERS) {
    const w = window.exec(message)?.[1];
    if (w === undefined) continue;
    const t = tokens?.exec(message)?.[1];
    return { window: Number(w), ...(t === undefined ? {} : { tokens: Number(t) }) };
  }
  return {};
}

/** Whether an upstream refusal says the conversation is over the context window: then what it says of the numbers. */
export function contextOverflow(protocol: OverflowProtocol, status: number, code: string | undefined, message: string): ContextOverflow | undefined {
  const signs = CONTEXT_OVERFLOW[protocol];
  if (!signs.statuses.includes(status)) return undefined;
  if ((code !== undefined && signs.codes.includes(code)) || signs.texts.some((text) => text.test(message))) return numbers(message);
  return undefined;
}
