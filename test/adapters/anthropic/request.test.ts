/**
 * The neutral request as an Anthropic body: conversation shaping, tools, tool choice, thinking.
 */
import { describe, expect, it } from "vitest";
import type { AssistantMessage, ChatRequest, Message, ToolDefinition, ToolMessage } from "../../../src/core/index.ts";
import { toWireParams, DEFAULT_MAX_TOKENS } from "../../../src/adapters/anthropic/to-request.ts";
import { toAnthropicToolId } from "../../../src/adapters/anthropic/tool-ids.ts";
import { UNANSWERED_RESULT_TEXT } from "../../../src/adapters/anthropic/pairing.ts";
import { PLACEHOLDER_USER_TEXT } from "../../../src/adapters/anthropic/turns.ts";
import { anthropicRequestError } from "../../helpers/anthropic-rules.ts";
import { PROVIDER, request, userText } from "./support.ts";

const wire = (req: ChatRequest, defaultMaxTokens?: number) =>
  toWireParams(req, { id: PROVIDER, ...(defaultMaxTokens === undefined ? {} : { defaultMaxTokens }) }) as any;

const tool = (name: string, inputSchema: ToolDefinition["inputSchema"] = { type: "object", properties: {} }): ToolDefinition => ({
  name,
  description: `the ${name} tool`,
  inputSchema,
});

const call = (id: string, name: string, args: { [key: string]: unknown } = {}) => ({
  type: "tool_call" as const,
  id,
  name,
  arguments: args,
  rawArguments: JSON.stringify(args),
});

const assistant = (...content: AssistantMessage["content"]): AssistantMessage => ({ role: "assistant", content });

const result = (callId: string, text: string, isError = false): ToolMessage => ({
  role: "tool",
  content: [{ type: "tool_result", callId, content: [{ type: "text", text }], isError }],
});

const ownThinking = (text: string, signature: string) => ({
  type: "reasoning" as const,
  text,
  providerData: { origin: PROVIDER, data: { signature } },
});

describe("conversation shape", () => {
  it("hoists every system message into `system`, joined, and keeps roles alternating", () => {
    const body = wire(
      request([
        { role: "system", content: [{ type: "text", text: "Be brief." }] },
        userText("hi"),
        { role: "system", content: [{ type: "text", text: "Answer in French." }, { type: "text", text: "  " }] },
        assistant({ type: "text", text: "Bonjour" }),
        userText("ça va?"),
      ]),
    );
    expect(body.system).toBe("Be brief.\n\nAnswer in French.");
    expect(body.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Bonjour" },
      { role: "user", content: "ça va?" },
    ]);
  });

  it("merges consecutive same-role turns", () => {
    const body = wire(request([userText("one"), userText("two"), assistant({ type: "text", text: "a" }), assistant({ type: "text", text: "b" })]));
    expect(body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] },
    ]);
  });

  it("drops empty and whitespace-only text, and a turn left empty, so its neighbours merge", () => {
    const body = wire(
      request([
        { role: "user", content: [{ type: "text", text: "" }, { type: "text", text: " \n" }, { type: "text", text: "question" }] },
        assistant({ type: "text", text: "   " }),
        userText("again"),
      ]),
    );
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "question" }, { type: "text", text: "again" }] }]);
  });

  it("keeps a blank closing user message as a placeholder, so the conversation does not end with the assistant (a prefill)", () => {
    const body = wire(request([userText("hi"), assistant({ type: "text", text: "Hello! How can I help?" }), userText("   ")]));
    expect(body.messages).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "Hello! How can I help?" },
      { role: "user", content: PLACEHOLDER_USER_TEXT },
    ]);
    expect(anthropicRequestError(body)).toBeUndefined();
  });

  it("keeps a blank user message between two answers as a placeholder, so the answers stay apart", () => {
    const body = wire(request([userText("one"), assistant({ type: "text", text: "a" }), userText("\n"), assistant({ type: "text", text: "b" }), userText("two")]));
    expect(body.messages.map((m: { role: string; content: unknown }) => [m.role, m.content])).toEqual([
      ["user", "one"],
      ["assistant", "a"],
      ["user", PLACEHOLDER_USER_TEXT],
      ["assistant", "b"],
      ["user", "two"],
    ]);
  });

  it("drops a blank user message next to another user turn (a tool result), adding no placeholder", () => {
    const body = wire(request([userText("go"), assistant(call("toolu_1", "f")), { role: "tool", content: [{ type: "tool_result", callId: "toolu_1", name: "f", content: [{ type: "text", text: "ok" }], isError: false }] }, userText(" ")]));
    expect(body.messages.at(-1)).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] });
  });

  it("puts a placeholder user turn first when the conversation starts with the assistant", () => {
    const body = wire(request([assistant({ type: "text", text: "How can I help?" }), userText("Weather?")]));
    expect(body.messages[0]).toEqual({ role: "user", content: PLACEHOLDER_USER_TEXT });
    expect(body.messages[1]).toEqual({ role: "assistant", content: "How can I help?" });
  });

  it("trims trailing whitespace of a closing assistant turn (prefill)", () => {
    const body = wire(request([userText("Write JSON"), assistant({ type: "text", text: "{\n" })]));
    expect(body.messages.at(-1)).toEqual({ role: "assistant", content: "{" });
  });

  it("converts user images (base64 and url), and audio and resources to text", () => {
    const body = wire(
      request([
        {
          role: "user",
          content: [
            { type: "text", text: "What is this?" },
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
            { type: "audio", mediaType: "audio/wav", data: "UklGRg==" },
            { type: "resource", uri: "file:///notes.md", mimeType: "text/markdown", text: "# Notes" },
          ],
        },
      ]),
    );
    expect(body.messages[0].content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
      { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
      { type: "text", text: "[audio/wav audio omitted: the Anthropic Messages API takes no audio input]" },
      { type: "text", text: "Resource file:///notes.md:\n# Notes" },
    ]);
  });
});

describe("tool calls and results", () => {
  const tools = [tool("get_weather"), tool("get_time")];

  it("groups parallel results into one user turn, results first, then the user's text", () => {
    const body = wire(
      request(
        [
          userText("Weather and time in Paris?"),
          assistant({ type: "text", text: "Checking both." }, call("toolu_a", "get_weather", { city: "Paris" }), call("toolu_b", "get_time", { tz: "CET" })),
          result("toolu_a", "18°C"),
          result("toolu_b", "14:02"),
          userText("Also: should I take an umbrella?"),
        ],
        { tools },
      ),
    );
    expect(body.messages).toEqual([
      { role: "user", content: "Weather and time in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking both." },
          { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
          { type: "tool_use", id: "toolu_b", name: "get_time", input: { tz: "CET" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "18°C" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "14:02" },
          { type: "text", text: "Also: should I take an umbrella?" },
        ],
      },
    ]);
    expect(anthropicRequestError(body)).toBeUndefined();
  });

  it("moves results before user text that came between the calls and their results", () => {
    const body = wire(request([userText("go"), assistant(call("toolu_a", "get_weather")), userText("hurry"), result("toolu_a", "sunny")], { tools }));
    expect(body.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", content: "sunny" },
      { type: "text", text: "hurry" },
    ]);
  });

  it("sends result content as text and image blocks, marks errors, omits empty content", () => {
    const body = wire(
      request(
        [
          userText("go"),
          assistant(call("toolu_a", "get_weather"), call("toolu_b", "get_weather"), call("toolu_c", "get_weather"), call("toolu_d", "get_weather")),
          {
            role: "tool",
            content: [
              {
                type: "tool_result",
                callId: "toolu_a",
                content: [
                  { type: "text", text: "Radar:" },
                  { type: "image", source: { kind: "base64", mediaType: "image/jpeg", data: "/9j/4AAQ" } },
                ],
                isError: false,
              },
              { type: "tool_result", callId: "toolu_b", content: [{ type: "text", text: "service down" }], isError: true },
              { type: "tool_result", callId: "toolu_c", content: [], isError: false },
              { type: "tool_result", callId: "toolu_d", content: [], structured: { temp: 18 }, isError: false },
            ],
          },
        ],
        { tools },
      ),
    );
    expect(body.messages[2].content).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_a",
        content: [
          { type: "text", text: "Radar:" },
          { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } },
        ],
      },
      { type: "tool_result", tool_use_id: "toolu_b", content: "service down", is_error: true },
      { type: "tool_result", tool_use_id: "toolu_c" },
      { type: "tool_result", tool_use_id: "toolu_d", content: '{"temp":18}' },
    ]);
  });

  it("maps foreign tool-call ids deterministically and identically on both sides", () => {
    const body = wire(
      request([userText("go"), assistant(call("call_abc.def", "get_weather"), call("call_abc:def", "get_time")), result("call_abc.def", "a"), result("call_abc:def", "b")], {
        tools,
      }),
    );
    const [useA, useB] = body.messages[1].content;
    const [resA, resB] = body.messages[2].content;
    expect(useA.id).toMatch(/^call_abc_def_[0-9a-f]{8}$/);
    expect(useA.id).toBe(toAnthropicToolId("call_abc.def"));
    expect(resA.tool_use_id).toBe(useA.id);
    expect(resB.tool_use_id).toBe(useB.id);
    expect(useA.id).not.toBe(useB.id);
    expect(toAnthropicToolId("toolu_01NRLabsLyVHZPKxbKvkfSMn")).toBe("toolu_01NRLabsLyVHZPKxbKvkfSMn");
    expect(toAnthropicToolId("")).toMatch(/^toolu_[0-9a-f]{8}$/);
    expect(anthropicRequestError(body)).toBeUndefined();
  });

  it("sends the parsed arguments object as input, never the raw text", () => {
    const broken = { ...call("toolu_a", "get_weather"), rawArguments: '{"city": "Par', argumentsError: "tool arguments are not valid JSON" };
    const body = wire(request([userText("go"), assistant(broken), result("toolu_a", "error")], { tools }));
    expect(body.messages[1].content[0].input).toEqual({});
  });

  it("answers an unanswered call with an error result and drops an orphan result", () => {
    const body = wire(
      request([userText("go"), assistant(call("toolu_a", "get_weather"), call("toolu_b", "get_time")), result("toolu_a", "sunny"), result("toolu_zzz", "stray")], {
        tools,
      }),
    );
    expect(body.messages[2].content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_a", content: "sunny" },
      { type: "tool_result", tool_use_id: "toolu_b", content: UNANSWERED_RESULT_TEXT, is_error: true },
    ]);
    expect(anthropicRequestError(body)).toBeUndefined();
  });
});

describe("tools and tool_choice", () => {
  it("sends name, description and an object input_schema", () => {
    const body = wire(
      request([userText("x")], {
        tools: [tool("a", {}), tool("b", { properties: { q: { type: "string" } }, required: ["q"] }), { name: "c", inputSchema: { type: "object", properties: {} }, strict: true }],
      }),
    );
    expect(body.tools).toEqual([
      { name: "a", description: "the a tool", input_schema: { type: "object", properties: {} } },
      { name: "b", description: "the b tool", input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
      { name: "c", input_schema: { type: "object", properties: {} } },
    ]);
  });

  const withTools = (extra: Partial<ChatRequest>) => wire(request([userText("x")], { tools: [tool("get_weather")], ...extra })).tool_choice;

  it.each([
    [{ toolChoice: { type: "auto" } }, { type: "auto" }],
    [{ toolChoice: { type: "required" } }, { type: "any" }],
    [{ toolChoice: { type: "tool", name: "get_weather" } }, { type: "tool", name: "get_weather" }],
    [{ toolChoice: { type: "none" } }, { type: "none" }],
    [{ toolChoice: { type: "required" }, parallelToolCalls: false }, { type: "any", disable_parallel_tool_use: true }],
    [{ toolChoice: { type: "tool", name: "get_weather" }, parallelToolCalls: false }, { type: "tool", name: "get_weather", disable_parallel_tool_use: true }],
    [{ parallelToolCalls: false }, { type: "auto", disable_parallel_tool_use: true }],
    [{ parallelToolCalls: true }, undefined],
    [{}, undefined],
  ] as [Partial<ChatRequest>, unknown][])("%j -> %j", (extra, expected) => {
    expect(withTools(extra)).toEqual(expected);
  });

  it("normalizes a client tool's schema the way Anthropic takes it: no root union, a root type", () => {
    const oneOfRoot = { type: "object", properties: { id: { type: "string" }, path: { type: "string" } }, anyOf: [{ required: ["id"] }, { required: ["path"] }] };
    const body = wire(request([userText("x")], { tools: [tool("lookup", oneOfRoot), tool("untyped", { properties: { q: { type: "string" } } })] }));
    expect(anthropicRequestError(body)).toBeUndefined();
    expect(body.tools![0]!.input_schema).toMatchObject({ type: "object", properties: { id: { type: "string" }, path: { type: "string" } } });
    expect(body.tools![0]!.input_schema).not.toHaveProperty("anyOf");
    expect(body.tools![1]!.input_schema).toMatchObject({ type: "object", properties: { q: { type: "string" } } });
    const direct = { ...body, tools: [{ name: "lookup", input_schema: oneOfRoot }] };
    expect(anthropicRequestError(direct)).toBe("tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level");
  });

  it("sends neither tools nor tool_choice without tools", () => {
    const body = wire(request([userText("x")], { tools: [], toolChoice: { type: "required" }, parallelToolCalls: false }));
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });
});

describe("parameters", () => {
  it("always sends max_tokens: the request's, else the provider default, else 4096", () => {
    expect(wire(request([userText("x")])).max_tokens).toBe(DEFAULT_MAX_TOKENS);
    expect(DEFAULT_MAX_TOKENS).toBe(4096);
    expect(wire(request([userText("x")]), 8192).max_tokens).toBe(8192);
    expect(wire(request([userText("x")], { maxTokens: 100 }), 8192).max_tokens).toBe(100);
  });

  it("maps sampling, stop, user and merges extra last", () => {
    const body = wire(
      request([userText("x")], {
        temperature: 0.2,
        stop: ["END"],
        user: "user-42",
        seed: 7,
        extra: { top_k: 5, service_tier: "auto", max_tokens: 999 },
      }),
    );
    expect(body).toMatchObject({ temperature: 0.2, stop_sequences: ["END"], metadata: { user_id: "user-42" }, top_k: 5, service_tier: "auto", max_tokens: 999 });
    expect(body.seed).toBeUndefined();
  });

  it("turns a JSON response format into a system instruction and sends no unknown field", () => {
    const schema = { type: "object", properties: { answer: { type: "number" } }, required: ["answer"] };
    const body = wire(
      request([{ role: "system", content: [{ type: "text", text: "You are a calculator." }] }, userText("2+2")], {
        responseFormat: { type: "json_schema", name: "Answer", schema },
      }),
    );
    expect(body.system).toBe(
      `You are a calculator.\n\nRespond with a single JSON value that conforms to the JSON schema "Answer", and nothing else: no prose, no code fences.\nSchema: ${JSON.stringify(schema)}`,
    );
    expect(body.response_format).toBeUndefined();
    expect(body.output_config).toBeUndefined();
    expect(wire(request([userText("x")], { responseFormat: { type: "json_object" } })).system).toMatch(/single JSON object/);
    expect(wire(request([userText("x")], { responseFormat: { type: "text" } })).system).toBeUndefined();
  });
});

describe("thinking", () => {
  it.each([
    ["minimal", 1024],
    ["low", 1024],
    ["medium", 4096],
    ["high", 16384],
    ["xhigh", 24576],
    ["max", 32768],
  ] as const)("effort %s -> budget %i", (effort, budget) => {
    const body = wire(request([userText("x")], { reasoning: { effort } }));
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: budget });
    expect(body.max_tokens).toBeGreaterThan(budget);
  });

  it("effort none -> no thinking", () => {
    expect(wire(request([userText("x")], { reasoning: { effort: "none" } }))).not.toHaveProperty("thinking");
  });

  it("takes an explicit budget, raising max_tokens above it and keeping the answer's room", () => {
    const body = wire(request([userText("x")], { reasoning: { budgetTokens: 3000, effort: "high" }, maxTokens: 1000 }));
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 3000 });
    expect(body.max_tokens).toBe(4000);
    expect(wire(request([userText("x")], { reasoning: { budgetTokens: 2000 }, maxTokens: 8000 })).max_tokens).toBe(8000);
    expect(wire(request([userText("x")], { reasoning: { budgetTokens: 0 } })).thinking).toBeUndefined();
  });

  it("drops temperature and a low top_p, and relaxes forced tool use to auto", () => {
    const base = { reasoning: { effort: "low" as const }, tools: [tool("get_weather")], temperature: 0.3, topP: 0.5 };
    const forced = wire(request([userText("x")], { ...base, toolChoice: { type: "required" }, parallelToolCalls: false }));
    expect(forced.temperature).toBeUndefined();
    expect(forced.top_p).toBeUndefined();
    expect(forced.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(wire(request([userText("x")], { ...base, toolChoice: { type: "tool", name: "get_weather" } })).tool_choice).toEqual({ type: "auto" });
    expect(wire(request([userText("x")], { ...base, topP: 0.97 })).top_p).toBe(0.97);
    expect(anthropicRequestError(forced)).toBeUndefined();
  });
});

describe("sampling", () => {
  it("sends temperature alone when both are set (4.5+ models refuse both), top_p alone when it is alone", () => {
    const both = wire(request([userText("x")], { temperature: 0.3, topP: 0.9 }));
    expect([both.temperature, both.top_p]).toEqual([0.3, undefined]);
    expect(wire(request([userText("x")], { topP: 0.9 })).top_p).toBe(0.9);
  });

  it("sends an OpenAI temperature above Anthropic's maximum of 1 as 1", () => {
    expect(wire(request([userText("x")], { temperature: 1.5 })).temperature).toBe(1);
    expect(wire(request([userText("x")], { temperature: 0 })).temperature).toBe(0);
  });
});

describe("reasoning in the history", () => {
  const history = (reasoning: AssistantMessage["content"]): Message[] => [
    userText("Weather in Paris?"),
    assistant(...reasoning, { type: "text", text: "Let me check." }, call("toolu_a", "get_weather", { city: "Paris" })),
    result("toolu_a", "18°C"),
  ];

  it("sends this provider's thinking and redacted thinking back unchanged, in place", () => {
    const body = wire(
      request(
        history([
          ownThinking("The user wants weather.", "sig-1"),
          { type: "reasoning", text: "", redacted: true, providerData: { origin: PROVIDER, data: { redactedData: "opaque==" } } },
        ]),
        { reasoning: { effort: "low" }, tools: [tool("get_weather")] },
      ),
    );
    expect(body.messages[1].content).toEqual([
      { type: "thinking", thinking: "The user wants weather.", signature: "sig-1" },
      { type: "redacted_thinking", data: "opaque==" },
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_a", name: "get_weather", input: { city: "Paris" } },
    ]);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(anthropicRequestError(body, { knownSignatures: new Set(["sig-1"]) })).toBeUndefined();
  });

  it("drops reasoning of another provider and reasoning without a signature", () => {
    const body = wire(
      request(
        history([
          { type: "reasoning", text: "OpenAI's thoughts", providerData: { origin: "openai", data: { signature: "not-anthropic" } } },
          { type: "reasoning", text: "no provider data" },
          ownThinking("cut off before its signature", ""),
        ]),
        { tools: [tool("get_weather")] },
      ),
    );
    expect(body.messages[1].content.map((block: { type: string }) => block.type)).toEqual(["text", "tool_use"]);
  });

  it("keeps thinking off mid tool loop when the calling turn has no thinking of ours", () => {
    const req = request(history([{ type: "reasoning", text: "foreign", providerData: { origin: "openai", data: {} } }]), {
      reasoning: { effort: "high" },
      temperature: 0.5,
      tools: [tool("get_weather")],
    });
    const body = wire(req);
    expect(body.thinking).toBeUndefined();
    expect(body.temperature).toBe(0.5);
    expect(anthropicRequestError(body)).toBeUndefined();
    // Forcing thinking on regardless is what the real API rejects:
    expect(anthropicRequestError({ ...body, thinking: { type: "enabled", budget_tokens: 16384 }, max_tokens: 20480, temperature: undefined })).toMatch(
      /^messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`/,
    );
  });
});
