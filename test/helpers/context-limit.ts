/**
 * A provider's context window, for fakes: the prompt of a request counted with a real BPE
 * (OpenAI's cl100k_base, the reference the gateway's estimate is held to), and the refusal each
 * protocol's providers send when it is over the window — their own status, error shape and text
 * (src/adapters/context-overflow.ts lists where each comes from).
 */
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { sendJson, type Handler } from "./fake-upstream.ts";

export type LimitProtocol = "openai" | "openai-responses" | "anthropic" | "gemini";

/** Keys whose string values are framing, not prompt text. */
const FRAMING = new Set(["role", "type", "id", "tool_call_id", "call_id", "model", "status", "tool_choice", "signature", "thoughtSignature", "encrypted_content"]);
/** The parts of a request body that make up the prompt, per protocol. */
const PROMPT_KEYS: Record<LimitProtocol, string[]> = {
  openai: ["messages", "tools"],
  "openai-responses": ["instructions", "input", "tools"],
  anthropic: ["system", "messages", "tools"],
  gemini: ["systemInstruction", "contents", "tools"],
};

function texts(node: unknown, out: string[], key = ""): void {
  if (typeof node === "string") {
    if (!FRAMING.has(key)) out.push(node);
  } else if (Array.isArray(node)) {
    for (const item of node) texts(item, out, key);
  } else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) texts(v, out, k);
  }
}

/** The reference count of a request's prompt: every text of it with cl100k_base, and 4 tokens a message for its framing. */
export function promptTokens(protocol: LimitProtocol, body: Record<string, unknown>): number {
  let tokens = 0;
  for (const key of PROMPT_KEYS[protocol]) {
    const part = body[key];
    if (part === undefined) continue;
    const found: string[] = [];
    texts(part, found);
    for (const text of found) tokens += encode(text).length;
    if (Array.isArray(part)) tokens += 4 * part.length;
  }
  return tokens;
}

export interface ContextRefusal {
  status: number;
  body: unknown;
  message: string;
}

/** What the provider answers to a prompt of `tokens` over its window of `limit`, as it words it. */
export function contextRefusal(protocol: LimitProtocol, tokens: number, limit: number): ContextRefusal {
  switch (protocol) {
    case "openai": {
      const message = `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
      return { status: 400, message, body: { error: { message, type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } } };
    }
    case "openai-responses": {
      const message = "Your input exceeds the context window of this model. Please adjust your input and try again.";
      return { status: 400, message, body: { error: { message, type: "invalid_request_error", param: "input", code: "context_length_exceeded" } } };
    }
    case "anthropic": {
      const message = `prompt is too long: ${tokens} tokens > ${limit} maximum`;
      return { status: 400, message, body: { type: "error", error: { type: "invalid_request_error", message }, request_id: "req_011CContextLimitFake" } };
    }
    case "gemini": {
      const message = `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`;
      return { status: 400, message, body: { error: { code: 400, message, status: "INVALID_ARGUMENT" } } };
    }
  }
}

export interface LimitLog {
  /** The reference count of every request let through, in order. */
  accepted: number[];
  /** The refusals sent, in order. */
  refused: ContextRefusal[];
}

/** A handler that refuses a prompt over `limit` tokens the way the provider does, and hands the others to `inner`. */
export function withContextLimit(protocol: LimitProtocol, limit: number, inner: Handler, log: LimitLog = { accepted: [], refused: [] }): Handler {
  return (req, res) => {
    const body = req.body as Record<string, unknown> | undefined;
    // count_tokens and model lists pass; only requests with a prompt are counted.
    if (!body || typeof body !== "object" || !PROMPT_KEYS[protocol].some((key) => key in body)) return inner(req, res);
    const tokens = promptTokens(protocol, body);
    if (tokens > limit) {
      const refusal = contextRefusal(protocol, tokens, limit);
      log.refused.push(refusal);
      sendJson(res, refusal.status, refusal.body);
      return;
    }
    log.accepted.push(tokens);
    return inner(req, res);
  };
}
