/** The wire body: what the fake upstream actually receives for neutral requests. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/core/index.ts";
import { toChatCompletionParams, toStreamingParams } from "../../../src/adapters/openai-chat/index.ts";
import { startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { adapterFor, collect, jsonBody, PROVIDER, rawSse, simpleRequest } from "./harness.ts";

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

const PNG = "iVBORw0KGgo=";

function richRequest(): ChatRequest {
  return {
    model: "gpt-4o",
    messages: [
      { role: "system", content: [{ type: "text", text: "Be brief." }, { type: "text", text: "Use tools." }] },
      {
        role: "user",
        content: [
          { type: "text", text: "What is in these images, and the weather?" },
          { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
          { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "I should call tools.", providerData: { origin: PROVIDER, data: { field: "reasoning_content" } } },
          { type: "text", text: "Let me check." },
          { type: "tool_call", id: "call_1", name: "weather__get", arguments: { city: "Paris" }, rawArguments: '{"city": "Paris"}' },
          {
            type: "tool_call",
            id: "call_2",
            name: "files__read",
            arguments: { path: "a.txt" },
            rawArguments: '{"path": "a.txt"', // broken: the repaired arguments are sent instead
            argumentsError: "tool arguments are not valid JSON",
          },
        ],
      },
      {
        role: "tool",
        content: [
          { type: "tool_result", callId: "call_1", name: "weather__get", content: [{ type: "text", text: "18°C, sunny" }], isError: false },
          {
            type: "tool_result",
            callId: "call_2",
            content: [
              { type: "text", text: "Contents:" },
              { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
              { type: "resource", uri: "file:///a.txt", mimeType: "text/plain", text: "hello from a.txt" },
              { type: "resource", uri: "file:///b.bin", mimeType: "application/octet-stream", blob: "AAAA" },
            ],
            isError: false,
          },
        ],
      },
      { role: "assistant", content: [{ type: "tool_call", id: "call_3", name: "noargs", arguments: {}, rawArguments: "" }] },
      { role: "tool", content: [{ type: "tool_result", callId: "call_3", content: [], structured: { ok: true }, isError: false }] },
    ],
    tools: [
      {
        name: "weather__get",
        description: "Current weather",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
        strict: true,
      },
      { name: "files__read", inputSchema: { type: "object", properties: { path: { type: "string" } } } },
    ],
    toolChoice: { type: "tool", name: "weather__get" },
    parallelToolCalls: false,
    temperature: 0.2,
    topP: 0.9,
    maxTokens: 256,
    stop: ["END"],
    responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
    seed: 7,
    user: "user-42",
    reasoning: { effort: "low" },
    extra: { metadata: { trace: "t1" }, top_p: 0.5 },
  };
}

const expectedMessages = [
  { role: "system", content: "Be brief.\n\nUse tools." },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in these images, and the weather?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
    ],
  },
  {
    role: "assistant",
    content: "Let me check.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "weather__get", arguments: '{"city": "Paris"}' } },
      { id: "call_2", type: "function", function: { name: "files__read", arguments: '{"path":"a.txt"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: "18°C, sunny" },
  {
    role: "tool",
    tool_call_id: "call_2",
    content: "Contents:\n[image: image/png]\nhello from a.txt\n[resource: file:///b.bin (application/octet-stream)]",
  },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_3", type: "function", function: { name: "noargs", arguments: "{}" } }],
  },
  { role: "tool", tool_call_id: "call_3", content: '{"ok":true}' },
];

describe("openai-chat request body", () => {
  it("a rich streamed request arrives exactly as expected (path, headers, body)", async () => {
    upstream.handle(rawSse("openai-chat/e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd.bin"));
    const adapter = adapterFor(upstream, { headers: { "x-team": "core" } });
    await collect(adapter.stream(richRequest()));
    const received = upstream.requests.at(-1)!;
    expect(received.method).toBe("POST");
    expect(received.path).toBe("/v1/chat/completions");
    expect(received.headers["authorization"]).toBe("Bearer not-needed");
    expect(received.headers["x-team"]).toBe("core");
    expect(received.body).toEqual({
      model: "gpt-4o",
      messages: expectedMessages,
      tools: [
        {
          type: "function",
          function: {
            name: "weather__get",
            description: "Current weather",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            strict: true,
          },
        },
        { type: "function", function: { name: "files__read", parameters: { type: "object", properties: { path: { type: "string" } } } } },
      ],
      tool_choice: { type: "function", function: { name: "weather__get" } },
      parallel_tool_calls: false,
      temperature: 0.2,
      top_p: 0.5, // extra wins
      max_tokens: 256,
      stop: ["END"],
      seed: 7,
      user: "user-42",
      reasoning_effort: "low",
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
      metadata: { trace: "t1" },
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it("complete() sends no stream fields and uses the configured api key", async () => {
    upstream.handle(jsonBody("openai-chat/openai-text.json"));
    await adapterFor(upstream, { apiKey: "sk-test" }).complete(simpleRequest("gpt-4.1-nano"));
    const received = upstream.requests.at(-1)!;
    expect(received.headers["authorization"]).toBe("Bearer sk-test");
    expect(received.body).toEqual({ model: "gpt-4.1-nano", messages: [{ role: "user", content: "Hi" }] });
  });

  it("tool_choice and parallel_tool_calls are stripped when no tools are sent", () => {
    const body = toChatCompletionParams({ ...simpleRequest(), tools: [], toolChoice: { type: "required" }, parallelToolCalls: true });
    expect(body).toEqual({ model: "test-model", messages: [{ role: "user", content: "Hi" }] });
  });

  it("tool choice variants", () => {
    const tools = [{ name: "t", inputSchema: { type: "object" } }];
    for (const type of ["auto", "none", "required"] as const) {
      expect(toChatCompletionParams({ ...simpleRequest(), tools, toolChoice: { type } }).tool_choice).toBe(type);
    }
  });

  it("response formats text and json_object", () => {
    expect(toChatCompletionParams({ ...simpleRequest(), responseFormat: { type: "text" } }).response_format).toEqual({ type: "text" });
    expect(toChatCompletionParams({ ...simpleRequest(), responseFormat: { type: "json_object" } }).response_format).toEqual({
      type: "json_object",
    });
  });

  it("max tokens: the field the client chose by default (as-sent), a fixed one by option, or the one extra carries", () => {
    const request = { ...simpleRequest(), maxTokens: 100 };
    expect(toChatCompletionParams(request)).toMatchObject({ max_tokens: 100 });
    const chosen = toChatCompletionParams({ ...request, openaiFields: { max_completion_tokens: 100 } });
    expect(chosen).toMatchObject({ max_completion_tokens: 100 });
    expect(chosen).not.toHaveProperty("max_tokens");
    const forced = toChatCompletionParams({ ...request, openaiFields: { max_completion_tokens: 100 } }, { maxTokensField: "max_tokens" });
    expect(forced).toMatchObject({ max_tokens: 100 });
    expect(forced).not.toHaveProperty("max_completion_tokens");
    const viaOption = toChatCompletionParams(request, { maxTokensField: "max_completion_tokens" });
    expect(viaOption).toMatchObject({ max_completion_tokens: 100 });
    expect(viaOption).not.toHaveProperty("max_tokens");
    const viaExtra = toChatCompletionParams({ ...request, extra: { max_completion_tokens: 50 } });
    expect(viaExtra).toMatchObject({ max_completion_tokens: 50 });
    expect(viaExtra).not.toHaveProperty("max_tokens");
  });

  it("an OpenAI reasoning model gets max_completion_tokens whatever the switch or the client's field (it refuses max_tokens anywhere)", () => {
    const chosen = { openaiFields: { max_completion_tokens: 100 }, maxTokens: 100 };
    for (const model of ["o3", "o4-mini", "gpt-5-mini", "codex-mini-latest", "openai/o4-mini"]) {
      expect(toChatCompletionParams({ ...simpleRequest(model), ...chosen }, { maxTokensField: "max_tokens" }), model).toMatchObject({ max_completion_tokens: 100 });
    }
    expect(toChatCompletionParams({ ...simpleRequest("deepseek-chat"), ...chosen }, { maxTokensField: "max_tokens" })).toMatchObject({ max_tokens: 100 });
    expect(toChatCompletionParams({ ...simpleRequest("o3"), maxTokens: 100 }, { maxTokensField: "max_tokens" })).toMatchObject({ max_completion_tokens: 100 });
    expect(toChatCompletionParams({ ...simpleRequest("o3"), maxTokens: 100 }, { maxTokensField: "max_tokens" })).not.toHaveProperty("max_tokens");
  });

  it("sends only the OpenAI-only fields its provider takes (openaiOnlyFields)", () => {
    const request = { ...simpleRequest(), openaiFields: { frequency_penalty: 0.5, logit_bias: { "1": -100 }, store: false } };
    expect(toChatCompletionParams(request, { openaiOnlyFields: ["frequency_penalty", "presence_penalty"] })).toMatchObject({ frequency_penalty: 0.5 });
    expect(toChatCompletionParams(request, { openaiOnlyFields: ["frequency_penalty", "presence_penalty"] })).not.toHaveProperty("logit_bias");
    expect(toChatCompletionParams(request, { openaiOnlyFields: [] })).not.toHaveProperty("frequency_penalty");
    expect(toChatCompletionParams(request, { openaiOnlyFields: ["*"] })).toMatchObject({ frequency_penalty: 0.5, logit_bias: { "1": -100 }, store: false });
  });

  it("sends the client's OpenAI-only fields; the token limit comes from maxTokens (the loop may adjust it), extra wins", () => {
    const body = toChatCompletionParams({
      ...simpleRequest(),
      maxTokens: 80,
      openaiFields: { frequency_penalty: 0.5, logit_bias: { "1": -100 }, max_completion_tokens: 100, service_tier: "flex" },
      extra: { service_tier: "priority" },
    });
    expect(body).toMatchObject({ frequency_penalty: 0.5, logit_bias: { "1": -100 }, max_completion_tokens: 80, service_tier: "priority" });
  });

  it("extra cannot turn streaming off, and its stream_options merge with include_usage", () => {
    const body = toStreamingParams({ ...simpleRequest(), extra: { stream: false, stream_options: { continuous_usage_stats: true } } });
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ continuous_usage_stats: true, include_usage: true });
    expect(toChatCompletionParams({ ...simpleRequest(), extra: { stream: true } })).not.toHaveProperty("stream");
  });

  it("the base translation sends no reasoning back (that is the quirk steps' job)", () => {
    const assistant = toChatCompletionParams(richRequest()).messages[2] as unknown as Record<string, unknown>;
    expect(assistant.role).toBe("assistant");
    expect(assistant).not.toHaveProperty("reasoning_content");
    expect(assistant).not.toHaveProperty("reasoning");
  });

  it("user content: audio as input_audio when wav/mp3, other parts as text", () => {
    const body = toChatCompletionParams({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "audio", mediaType: "audio/wav", data: "UklG" },
            { type: "audio", mediaType: "audio/ogg", data: "T2dn" },
            { type: "resource", uri: "file:///notes.md", text: "# Notes" },
          ],
        },
        { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
        { role: "assistant", content: [] },
      ],
    });
    expect(body.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "input_audio", input_audio: { data: "UklG", format: "wav" } },
          { type: "text", text: "[audio: audio/ogg]" },
          { type: "text", text: "# Notes" },
        ],
      },
      { role: "assistant", content: "a\n\nb" },
      { role: "assistant", content: "" },
    ]);
  });
});
