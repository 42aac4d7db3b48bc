/**
 * The Responses door's response object: every field OpenAI's has, in OpenAI's order (the JSON a
 * client reads), the request's settings repeated with their defaults, and the optional ones only
 * when the request set them.
 */
import { describe, expect, it } from "vitest";
import { responseObject, statusOf } from "../../src/gateway/doors/responses/response-object.ts";
import type { ResponsesRequestBody } from "../../src/gateway/doors/responses/request-schema.ts";
import type { LoopOutcome } from "../../src/loop/index.ts";

const outcome = {
  stopReason: "stop",
  message: { role: "assistant", content: [] },
  newMessages: [],
  clientToolCalls: [],
  usage: { inputTokens: 10, outputTokens: 5 },
  turns: 1,
  tools: [],
  last: { provider: "p", model: "m" },
} as unknown as LoopOutcome;

const head = (body: Partial<ResponsesRequestBody>) => ({ id: "resp_1", createdAt: 1, model: "p/m", body: { model: "p/m", ...body } as ResponsesRequestBody });

describe("the response object", () => {
  it("has OpenAI's fields in OpenAI's order, with the request's settings or their defaults", () => {
    const response = responseObject(head({}), [], { ...statusOf(outcome), outcome });
    expect(Object.keys(response)).toEqual([
      "id", "object", "created_at", "status", "error", "incomplete_details", "model", "output",
      "instructions", "max_output_tokens", "parallel_tool_calls", "previous_response_id", "reasoning", "store",
      "temperature", "text", "tool_choice", "tools", "top_p", "truncation", "metadata", "user", "usage", "mcp_gateway",
    ]);
    expect(response).toMatchObject({
      object: "response",
      status: "completed",
      error: null,
      incomplete_details: null,
      instructions: null,
      parallel_tool_calls: true,
      store: true,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      truncation: "disabled",
      metadata: {},
      user: null,
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
      mcp_gateway: { provider: "p", model: "m", stop_reason: "stop", turns: 1 },
    });
  });

  it("repeats the optional settings a request set, before `user`, and has no usage or mcp_gateway before the end", () => {
    const response = responseObject(head({ prompt_cache_key: "k", safety_identifier: "s", service_tier: "flex", store: false, user: "u" }), [], { status: "in_progress" });
    const keys = Object.keys(response);
    expect(keys.slice(keys.indexOf("metadata"))).toEqual(["metadata", "prompt_cache_key", "safety_identifier", "service_tier", "user", "usage"]);
    expect(response).toMatchObject({ prompt_cache_key: "k", safety_identifier: "s", service_tier: "flex", store: false, user: "u", usage: null });
  });
});
