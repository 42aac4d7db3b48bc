/** The neutral request as a Responses body: input items, tools, fields, and the pass-through. */
import { afterEach, describe, expect, it } from "vitest";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { ENCRYPTED_REASONING, toWireParams } from "../../../src/adapters/openai-responses/index.ts";
import { toWireParams as toAnthropicParams } from "../../../src/adapters/anthropic/index.ts";
import type { ChatRequest, Message, RequestPassthrough, ToolDefinition } from "../../../src/core/index.ts";
import { PROVIDER, adapterAt, request, sendEvents, userText } from "./support.ts";

const wire = (req: ChatRequest) => toWireParams(req, { origin: PROVIDER });

const ownReasoningItem = {
  id: "rs_own",
  type: "reasoning",
  summary: [{ type: "summary_text", text: "Thinking about the weather" }],
  encrypted_content: "gAAAAB-own-ciphertext",
};

const weather: ToolDefinition = {
  name: "get_weather",
  description: "Weather of a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const applyPatch: ToolDefinition = {
  name: "apply_patch",
  description: "Apply a patch",
  inputSchema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
  freeform: { format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } },
};
const later: ToolDefinition = { name: "search_docs", inputSchema: { type: "object" }, deferred: true };

const conversation: Message[] = [
  { role: "system", content: [{ type: "text", text: "Be brief." }, { type: "text", text: "Use tools." }] },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this picture, and the weather in Paris?" },
      { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" }, detail: "high" },
      { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
    ],
  },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Claude thought", providerData: { origin: "anthropic", data: { signature: "sig" } } },
      { type: "reasoning", text: "Thinking about the weather", providerData: { origin: PROVIDER, data: { item: ownReasoningItem } } },
      { type: "text", text: "A cat. Checking the weather." },
      { type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" }, rawArguments: '{"city":"Paris"}' },
      { type: "opaque", providerData: { origin: PROVIDER, data: { item: { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "paris weather" } } } } },
      { type: "opaque", providerData: { origin: "anthropic", data: { block: { type: "server_tool_use" } } } },
    ],
  },
  { role: "tool", content: [{ type: "tool_result", callId: "call_1", name: "get_weather", content: [{ type: "text", text: "18°C" }, { type: "text", text: "sunny" }], isError: false }] },
  {
    role: "assistant",
    content: [{ type: "tool_call", id: "call_2", name: "apply_patch", arguments: { input: "*** Begin Patch\n*** End Patch" }, rawArguments: JSON.stringify({ input: "*** Begin Patch\n*** End Patch" }) }],
  },
  { role: "tool", content: [{ type: "tool_result", callId: "call_2", name: "apply_patch", content: [{ type: "text", text: "Done" }], isError: false }] },
  userText("Thanks"),
];

describe("input items", () => {
  const params = wire(request(conversation, { tools: [weather, applyPatch, later] }));

  it("converts every turn, in order", () => {
    expect(params.input).toEqual([
      { type: "message", role: "system", content: "Be brief.\n\nUse tools." },
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: "What is in this picture, and the weather in Paris?" },
          { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" },
          { type: "input_image", image_url: "https://example.com/cat.jpg", detail: "auto" },
        ],
      },
      // Only this provider's reasoning goes back, verbatim (encrypted content included); Anthropic's does not.
      ownReasoningItem,
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "A cat. Checking the weather." }] },
      { type: "function_call", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
      { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "paris weather" } },
      { type: "function_call_output", call_id: "call_1", output: "18°C\nsunny" },
      { type: "custom_tool_call", call_id: "call_2", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
      { type: "custom_tool_call_output", call_id: "call_2", output: "Done" },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks" }] },
    ]);
  });

  it("offers function and freeform tools, not deferred ones", () => {
    expect(params.tools).toEqual([
      { type: "function", name: "get_weather", description: "Weather of a city", parameters: weather.inputSchema, strict: false },
      { type: "custom", name: "apply_patch", description: "Apply a patch", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } },
    ]);
  });

  it("is stateless: store false, encrypted reasoning asked for", () => {
    expect(params.store).toBe(false);
    expect(params.include).toEqual([ENCRYPTED_REASONING]);
    expect(params).not.toHaveProperty("previous_response_id");
  });

  it("a tool result with an image is a list of parts; structured content stands in for none", () => {
    const messages: Message[] = [
      userText("shot"),
      { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "screenshot", arguments: {}, rawArguments: "" }, { type: "tool_call", id: "c2", name: "stats", arguments: {}, rawArguments: "not json" }] },
      {
        role: "tool",
        content: [
          { type: "tool_result", callId: "c1", content: [{ type: "text", text: "here" }, { type: "image", source: { kind: "base64", mediaType: "image/jpeg", data: "AAAA" } }], isError: false },
          { type: "tool_result", callId: "c2", content: [], structured: { ok: 1 }, isError: false },
        ],
      },
    ];
    expect(wire(request(messages)).input.slice(1)).toEqual([
      { type: "function_call", call_id: "c1", name: "screenshot", arguments: "{}" },
      { type: "function_call", call_id: "c2", name: "stats", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "here" }, { type: "input_image", image_url: "data:image/jpeg;base64,AAAA" }] },
      { type: "function_call_output", call_id: "c2", output: '{"ok":1}' },
    ]);
  });

  it("a call left without a result is answered with the placeholder, as the API requires", () => {
    const messages: Message[] = [userText("go"), { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "get_weather", arguments: {}, rawArguments: "{}" }] }, userText("never mind")];
    const input = wire(request(messages)).input;
    expect(input[2]).toMatchObject({ type: "function_call_output", call_id: "c1" });
  });

  it("reasoning of this provider that only names server state (no encrypted content) is not sent", () => {
    const bare = { id: "rs_bare", type: "reasoning", summary: [] };
    const messages: Message[] = [userText("a"), { role: "assistant", content: [{ type: "reasoning", text: "", providerData: { origin: PROVIDER, data: { item: bare } } }, { type: "text", text: "b" }] }];
    expect(wire(request(messages)).input.map((item) => (item as { type: string }).type)).toEqual(["message", "message"]);
  });
});

describe("request fields", () => {
  it("sampling, limits, tool choice, response format, user, the OpenAI fields Responses knows", () => {
    const params = wire(
      request([userText("hi")], {
        tools: [weather],
        toolChoice: { type: "tool", name: "get_weather" },
        parallelToolCalls: false,
        temperature: 0.3,
        topP: 0.9,
        maxTokens: 500,
        stop: ["END"],
        seed: 7,
        user: "user-1",
        responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
        openaiFields: { service_tier: "flex", metadata: { run: "1" }, prompt_cache_key: "k", safety_identifier: "s", frequency_penalty: 1, logit_bias: {}, store: true },
      }),
    );
    expect(params).toEqual({
      model: "gpt-5-mini",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
      tools: [{ type: "function", name: "get_weather", description: "Weather of a city", parameters: weather.inputSchema, strict: false }],
      tool_choice: { type: "function", name: "get_weather" },
      parallel_tool_calls: false,
      service_tier: "flex",
      metadata: { run: "1" },
      prompt_cache_key: "k",
      safety_identifier: "s",
      temperature: 0.3,
      top_p: 0.9,
      max_output_tokens: 500,
      user: "user-1",
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true } },
      store: false,
      include: [ENCRYPTED_REASONING],
    });
  });

  it("a forced freeform tool is a custom choice; simple choices are strings; no tools, no choice", () => {
    expect(wire(request([userText("x")], { tools: [applyPatch], toolChoice: { type: "tool", name: "apply_patch" } })).tool_choice).toEqual({ type: "custom", name: "apply_patch" });
    expect(wire(request([userText("x")], { tools: [weather], toolChoice: { type: "required" } })).tool_choice).toBe("required");
    const none = wire(request([userText("x")], { toolChoice: { type: "none" }, parallelToolCalls: true }));
    expect(none).not.toHaveProperty("tool_choice");
    expect(none).not.toHaveProperty("parallel_tool_calls");
    expect(none).not.toHaveProperty("tools");
  });

  it("reasoning effort asks for summaries; a translated request only for OpenAI reasoning models", () => {
    expect(wire(request([userText("x")], { reasoning: { effort: "low" } })).reasoning).toEqual({ effort: "low", summary: "auto" });
    expect(wire(request([userText("x")], { reasoning: { effort: "high", translated: true } })).reasoning).toEqual({ effort: "high", summary: "auto" });
    expect(wire(request([userText("x")], { reasoning: { effort: "none" } })).reasoning).toEqual({ effort: "none" });
    const gpt41 = wire(request([userText("x")], { model: "gpt-4.1", reasoning: { effort: "high", translated: true } }));
    expect(gpt41).not.toHaveProperty("reasoning");
  });

  it("encrypted reasoning is asked of reasoning models only: gpt-4o and gpt-4.1 refuse the include", () => {
    expect(wire(request([userText("x")], { model: "gpt-4.1" }))).not.toHaveProperty("include");
    expect(wire(request([userText("x")], { model: "gpt-4o" })).store).toBe(false);
    expect(wire(request([userText("x")], { model: "o4-mini" })).include).toEqual([ENCRYPTED_REASONING]);
    // A deployment's own name: asking for reasoning says it is a reasoning model.
    expect(wire(request([userText("x")], { model: "my-deployment", reasoning: { effort: "medium" } })).include).toEqual([ENCRYPTED_REASONING]);
  });

  it("extra is merged last, but store stays false and our include stays", () => {
    const params = wire(request([userText("x")], { extra: { store: true, stream: true, include: ["message.output_text.logprobs"], truncation: "auto" } }));
    expect(params).toMatchObject({ store: false, truncation: "auto", include: ["message.output_text.logprobs", ENCRYPTED_REASONING] });
    expect(params).not.toHaveProperty("stream");
  });
});

describe("pass-through for Responses clients", () => {
  const passthrough: RequestPassthrough = {
    protocol: "openai-responses",
    body: {
      truncation: "auto",
      text: { verbosity: "low" },
      include: ["web_search_call.action.sources"],
      service_tier: "priority",
      metadata: { client: "codex" },
      prompt_cache_key: "session-1",
      reasoning: { effort: "minimal", summary: "detailed" },
      store: true,
      previous_response_id: "resp_old",
      instructions: "travels as a system message",
      input: "ignored",
      tool_choice: "auto",
    },
    tools: [
      { type: "function", name: "get_weather", description: "client's copy", parameters: {}, strict: false },
      { type: "web_search" },
      { type: "file_search", vector_store_ids: ["vs_1"] },
      { type: "function", name: "search_docs", parameters: { type: "object" }, defer_loading: true },
    ],
    headers: { "x-client-trace": "t-1" },
  };

  it("merges the body fields the adapter does not set and appends the client's hosted tools", () => {
    const params = wire(request([userText("x")], { tools: [weather, later], reasoning: { effort: "high" }, responseFormat: { type: "json_object" }, passthrough }));
    expect(params).toMatchObject({
      truncation: "auto",
      service_tier: "priority",
      metadata: { client: "codex" },
      prompt_cache_key: "session-1",
      store: false,
      tool_choice: "auto",
      // Our effort; the client's choice of summary.
      reasoning: { effort: "high", summary: "detailed" },
      text: { verbosity: "low", format: { type: "json_object" } },
    });
    expect(params.include).toEqual(["web_search_call.action.sources", ENCRYPTED_REASONING]);
    for (const field of ["previous_response_id", "instructions"]) expect(params).not.toHaveProperty(field);
    expect(params.input).toEqual([{ type: "message", role: "user", content: [{ type: "input_text", text: "x" }] }]);
    expect(params.tools).toEqual([
      { type: "function", name: "get_weather", description: "Weather of a city", parameters: weather.inputSchema, strict: false },
      { type: "web_search" },
      { type: "file_search", vector_store_ids: ["vs_1"] },
      // The deferred tool goes as the client sent it (it is not among the tools offered).
      { type: "function", name: "search_docs", parameters: { type: "object" }, defer_loading: true },
    ]);
  });

  it("keeps the client's fields first, in its order, then ours; a __proto__ field changes no prototype", () => {
    const body = JSON.parse('{"truncation":"auto","__proto__":{"polluted":true},"model":"x","service_tier":"flex"}') as Record<string, unknown>;
    const params = wire(request([userText("x")], { passthrough: { protocol: "openai-responses", body, tools: [], headers: {} } })) as unknown as Record<string, unknown>;
    expect(Object.keys(params).slice(0, 4)).toEqual(["truncation", "service_tier", "model", "input"]);
    expect(params["model"]).not.toBe("x");
    expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
    expect(params["polluted"]).toBeUndefined();
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });

  it("forwards the client's headers, streamed and not", async () => {
    const server: FakeUpstream = await startFakeUpstream((req, res) => {
      if (req.body.stream) {
        sendEvents(res, [
          { type: "response.created", response: { id: "resp_1", model: "gpt-5-mini", status: "in_progress", output: [] } },
          { type: "response.completed", response: { id: "resp_1", model: "gpt-5-mini", status: "completed", output: [], usage: { input_tokens: 1, output_tokens: 0 } } },
        ]);
      } else {
        sendJson(res, 200, { id: "resp_1", object: "response", model: "gpt-5-mini", status: "completed", output: [], usage: { input_tokens: 1, output_tokens: 0 } });
      }
    });
    try {
      const adapter = adapterAt(server.url);
      await adapter.complete(request([userText("x")], { passthrough }));
      for await (const _event of adapter.stream(request([userText("x")], { passthrough }))) {
        // drain
      }
      expect(server.requests.map((r) => r.headers["x-client-trace"])).toEqual(["t-1", "t-1"]);
      expect(server.requests.map((r) => r.path)).toEqual(["/v1/responses", "/v1/responses"]);
      expect(server.requests[1]!.body).toMatchObject({ stream: true, store: false, truncation: "auto" });
    } finally {
      await server.close();
    }
  });

  it("is ignored by the Anthropic adapter, whose pass-through is its own protocol's only", () => {
    const params = toAnthropicParams(request([userText("x")], { model: "claude-haiku-4-5", passthrough }), { id: "anthropic" });
    expect(params).not.toHaveProperty("truncation");
    expect(params).not.toHaveProperty("tools");
  });
});

describe("function names OpenAI refuses", () => {
  let server: FakeUpstream | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("go out renamed and come back as they were", async () => {
    server = await startFakeUpstream((req, res) => {
      const name = (req.body.tools as Array<{ name: string }>)[0]!.name;
      sendJson(res, 200, {
        id: "resp_1",
        object: "response",
        model: "gpt-5-mini",
        status: "completed",
        output: [{ id: "fc_1", type: "function_call", status: "completed", call_id: "call_1", name, arguments: "{}" }],
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    });
    const tool: ToolDefinition = { name: "fs.read", inputSchema: { type: "object" } };
    const result = await adapterAt(server.url).complete(request([userText("x")], { tools: [tool] }));
    expect(server.requests[0]!.body.tools[0].name).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(result.message.content[0]).toMatchObject({ type: "tool_call", name: "fs.read" });
  });
});

describe("tool choice and verbosity from the client's own protocol", () => {
  const hostedChoice = (toolChoice: ChatRequest["toolChoice"]) =>
    wire(
      request([userText("x")], {
        tools: [weather],
        ...(toolChoice ? { toolChoice } : {}),
        passthrough: { protocol: "openai-responses", body: { tool_choice: { type: "web_search" } }, tools: [{ type: "web_search" }], headers: {} },
      }),
    ).tool_choice;

  it("a forced hosted tool goes as the client chose it, until the loop relaxes it", () => {
    expect(hostedChoice({ type: "required" })).toEqual({ type: "web_search" });
    expect(hostedChoice({ type: "auto" })).toBe("auto");
  });

  it("a forced function stays ours (its name may have been renamed for the wire)", () => {
    const params = wire(
      request([userText("x")], {
        tools: [weather],
        toolChoice: { type: "tool", name: "get_weather" },
        passthrough: { protocol: "openai-responses", body: { tool_choice: { type: "function", name: "get_weather" } }, tools: [], headers: {} },
      }),
    );
    expect(params.tool_choice).toEqual({ type: "function", name: "get_weather" });
  });

  it("a Chat Completions client's verbosity goes into text", () => {
    expect(wire(request([userText("x")], { openaiFields: { verbosity: "low" }, responseFormat: { type: "json_object" } })).text).toEqual({ format: { type: "json_object" }, verbosity: "low" });
  });
});
