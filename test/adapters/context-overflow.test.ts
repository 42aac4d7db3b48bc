/** Each protocol's context-length refusals recognised, with the numbers their texts give. */
import { describe, expect, it } from "vitest";
import { contextOverflow } from "../../src/adapters/context-overflow.ts";

describe("contextOverflow", () => {
  it.each([
    ["openai", 400, "context_length_exceeded", "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.", { window: 128000, tokens: 130412 }],
    ["openai", 400, undefined, "This model's maximum prompt length is 131072 but the request contains 150310 tokens.", { window: 131072, tokens: 150310 }],
    ["openai", 400, undefined, "Prompt contains 40012 tokens and 0 draft tokens, too large for model with 32768 maximum context length", { window: 32768, tokens: 40012 }],
    ["openai", 400, "exceed_context_size_error", "the request exceeds the available context size, try increasing it", {}],
    ["openai-responses", 400, "context_length_exceeded", "Your input exceeds the context window of this model. Please adjust your input and try again.", {}],
    ["anthropic", 400, "invalid_request_error", "prompt is too long: 208310 tokens > 200000 maximum", { window: 200000, tokens: 208310 }],
    ["anthropic", 400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 195000 + 8192 > 200000, decrease input length or `max_tokens` and try again", { window: 200000, tokens: 195000 }],
    ["gemini", 400, "INVALID_ARGUMENT", "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).", { window: 1048576, tokens: 1234567 }],
  ] as const)("%s %i %s: %s", (protocol, status, code, message, expected) => {
    expect(contextOverflow(protocol, status, code, message)).toEqual(expected);
  });

  it("is not a context-length refusal: other 400s, and the same text with another status", () => {
    expect(contextOverflow("openai", 400, "invalid_value", "Invalid value for 'parallel_tool_calls'")).toBeUndefined();
    expect(contextOverflow("anthropic", 400, "invalid_request_error", "messages: roles must alternate")).toBeUndefined();
    expect(contextOverflow("openai", 500, undefined, "This model's maximum context length is 8192 tokens.")).toBeUndefined();
  });
});
