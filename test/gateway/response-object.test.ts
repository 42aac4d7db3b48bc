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
    expect(response).toStrictEqual({
      id: "resp_1",
      object: "response",
      created_at: 1,
      status: "completed",
      error: null,
      incomplete_details: null,
      model: "p/m",
      output: [],
      instructions: null,
      max_output_tokens: null,
      parallel_tool_calls: true,
      previous_response_id: null,
      reasoning: null,
      store: true,
      temperature: null,
      text: { format: { type: "text" } },
      tool_choice: "auto",
      tools: [],
      top_p: null,
      truncation: "disabled",
      metadata: {},
      user: null,
      usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
      mcp_gateway: { provider: "p", model: "m", stop_reason: "stop", turns: 1, tool_calls: [], usage: { input_tokens: 10, output_tokens: 5 } },
    });
  });

  it("repeats the settings a request set, the optional ones before `user`, and has no usage or mcp_gateway before the end", () => {
    const settings = { instructions: "be brief", max_output_tokens: 50, parallel_tool_calls: false, previous_response_id: "resp_0", temperature: 0.2, top_p: 0.9, truncation: "auto", metadata: { a: "b" } } as const;
    const response = responseObject(head({ ...settings, prompt_cache_key: "k", safety_identifier: "s", service_tier: "flex", store: false, user: "u" }), [], { status: "in_progress" });
    const keys = Object.keys(response);
    expect(keys.slice(keys.indexOf("metadata"))).toEqual(["metadata", "prompt_cache_key", "safety_identifier", "service_tier", "user", "usage"]);
    expect(response).toMatchObject({ ...settings, prompt_cache_key: "k", safety_identifier: "s", service_tier: "flex", store: false, user: "u", usage: null, status: "in_progress" });
    // An empty optional setting is not repeated.
    expect(responseObject(head({ prompt_cache_key: "" }), [], { status: "in_progress" })).not.toHaveProperty("prompt_cache_key");
  });

  it("says why an answer is incomplete or failed", () => {
    const cut = { ...outcome, stopReason: "length" } as LoopOutcome;
    expect(responseObject(head({}), [], { ...statusOf(cut), outcome: cut })).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, error: null });
    expect(responseObject(head({}), [], { status: "failed", error: { code: "server_error", message: "upstream down" } })).toMatchObject({ status: "failed", error: { code: "server_error", message: "upstream down" }, incomplete_details: null, usage: null });
  });
});
