/**
 * The strict validator rejects what the real API rejects (so tests against it can fail), and the
 * adapter's requests for messy multi-turn conversations pass it end to end over HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeUpstream, Handler } from "../../helpers/fake-upstream.ts";
import { anthropicRequestError, replyWith, startFakeAnthropic, type RuleOptions } from "../../helpers/anthropic-rules.ts";
import type { AssistantMessage, ChatRequest, Message, ToolDefinition } from "../../../src/core/index.ts";
import { adapterAt, collect, completeError, lastResult, PROVIDER, request, userText } from "./support.ts";

const user = (content: unknown) => ({ role: "user", content });
const assistantWire = (content: unknown) => ({ role: "assistant", content });
const body = (messages: unknown[], extra: object = {}) => ({ model: "claude-haiku-4-5", max_tokens: 1024, messages, ...extra });
const toolUse = (id: string, input: unknown = {}) => ({ type: "tool_use", id, name: "get_weather", input });
const toolResult = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "ok" });
const schema = { type: "object", properties: {} };

describe("the validator rejects what Anthropic rejects, with its words", () => {
  it.each([
    [
      "a tool name with a slash",
      body([user("hi")], { tools: [{ name: "github/search", input_schema: schema }] }),
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    ],
    ["duplicate tool names", body([user("hi")], { tools: [{ name: "a", input_schema: schema }, { name: "a", input_schema: schema }] }), "tools: Tool names must be unique."],
    ["an input_schema without type", body([user("hi")], { tools: [{ name: "a", input_schema: { properties: {} } }] }), "tools.0.custom.input_schema.type: Field required"],
    [
      "a system message",
      body([{ role: "system", content: "Be brief." }, user("hi")]),
      'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
    ],
    ["an assistant first", body([assistantWire("Hello"), user("hi")]), 'messages: first message must use the "user" role'],
    ["two user turns in a row", body([user("a"), user("b")]), 'messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row'],
    ["an empty text block", body([user([{ type: "text", text: "" }])]), "messages: text content blocks must be non-empty"],
    ["a lone whitespace text", body([user([{ type: "text", text: " " }])]), "messages: text content blocks must contain non-whitespace text"],
    ["a whitespace string", body([user("\n")]), "messages: text content blocks must contain non-whitespace text"],
    [
      "a foreign tool_use id",
      body([user("hi"), assistantWire([toolUse("call_abc.def")]), user([toolResult("call_abc.def")])]),
      "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    ],
    [
      "tool_use input as a string",
      body([user("hi"), assistantWire([toolUse("toolu_1", '{"city":"Paris"}')]), user([toolResult("toolu_1")])]),
      "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
    ],
    [
      "an unanswered call",
      body([user("hi"), assistantWire([toolUse("toolu_1"), toolUse("toolu_2")]), user([{ type: "text", text: "well?" }, toolResult("toolu_1")])]),
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1, toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
    ],
    [
      "results after text",
      body([user("hi"), assistantWire([toolUse("toolu_1"), toolUse("toolu_2")]), user([{ type: "text", text: "here" }, toolResult("toolu_1"), toolResult("toolu_2")])]),
      "messages.2: Did not find 2 `tool_result` block(s) at the beginning of this message. Messages following `tool_use` blocks must begin with a matching number of `tool_result` blocks.",
    ],
    [
      "an orphan result",
      body([user("hi"), assistantWire("ok"), user([toolResult("toolu_9")])]),
      "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.",
    ],
    ["thinking without signature", body([user("hi"), assistantWire([{ type: "thinking", thinking: "hm" }, { type: "text", text: "ok" }]), user("go")]), "messages.1.content.0.thinking.signature: Field required"],
    [
      "thinking with forced tool use",
      body([user("hi")], { thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 2048, tools: [{ name: "a", input_schema: schema }], tool_choice: { type: "any" } }),
      "Thinking may not be enabled when tool_choice forces tool use.",
    ],
    ["max_tokens not above the budget", body([user("hi")], { thinking: { type: "enabled", budget_tokens: 2048 }, max_tokens: 2048 }), "`max_tokens` must be greater than `thinking.budget_tokens`."],
    ["trailing whitespace at the end", body([user("hi"), assistantWire("Sure:\n")]), "messages: final assistant content cannot end with trailing whitespace"],
  ] as [string, unknown, string][])("%s", (_name, bad, message) => {
    expect(anthropicRequestError(bad)).toBe(message);
  });

  it("rejects a signature it did not issue when it tracks signatures", () => {
    const replay = body([user("hi"), assistantWire([{ type: "thinking", thinking: "hm", signature: "forged" }, toolUse("toolu_1")]), user([toolResult("toolu_1")])], {
      thinking: { type: "enabled", budget_tokens: 1024 },
      max_tokens: 2048,
    });
    expect(anthropicRequestError(replay, { knownSignatures: new Set(["real"]) })).toBe("messages.1.content.0: Invalid `signature` in `thinking` block");
    expect(anthropicRequestError(replay, { knownSignatures: new Set(["forged"]) })).toBeUndefined();
  });

  it("accepts what Anthropic accepts", () => {
    expect(anthropicRequestError(body([user([{ type: "text", text: " " }, { type: "text", text: "real" }])]))).toBeUndefined();
    expect(anthropicRequestError(body([user("hi"), assistantWire([toolUse("toolu_1"), toolUse("toolu_2")]), user([toolResult("toolu_2"), toolResult("toolu_1"), { type: "text", text: "and?" }])]))).toBeUndefined();
  });
});

describe("the adapter's requests pass the strict fake server", () => {
  const signature = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds";
  const issued = new Set([signature]);
  let server: FakeUpstream;
  let respond: Handler;
  let rules: RuleOptions = {};

  beforeAll(async () => {
    server = await startFakeAnthropic((req, res) => respond(req, res), {
      get knownSignatures() {
        return rules.knownSignatures;
      },
    });
  });
  afterAll(() => server.close());

  const tools: ToolDefinition[] = [
    { name: "get_weather", description: "Weather for a city", inputSchema: { type: "object", properties: { city: { type: "string" } } } },
    { name: "get_time", description: "Time in a zone", inputSchema: {} },
  ];
  const answer = (content: unknown[], stop_reason = "end_turn") => ({
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: "claude-haiku-4-5",
    content,
    stop_reason,
    usage: { input_tokens: 10, output_tokens: 5 },
  });
  const call = (id: string, name: string, args: { [key: string]: unknown }) => ({ type: "tool_call" as const, id, name, arguments: args, rawArguments: JSON.stringify(args) });
  const resultOf = (callId: string, text: string): Message => ({ role: "tool", content: [{ type: "tool_result", callId, content: [{ type: "text", text }], isError: false }] });

  async function accepted(req: ChatRequest) {
    respond = replyWith(answer([{ type: "text", text: "Fine." }]));
    const result = await adapterAt(server.url).complete(req);
    expect(result.message.content).toEqual([{ type: "text", text: "Fine." }]);
    return server.requests.at(-1)?.body;
  }

  it("parallel calls with their results, then user text in the same turn", async () => {
    const sent = await accepted(
      request(
        [
          userText("Weather and time in Paris?"),
          { role: "assistant", content: [call("toolu_1", "get_weather", { city: "Paris" }), call("toolu_2", "get_time", { zone: "CET" })] },
          resultOf("toolu_2", "14:02"),
          resultOf("toolu_1", "18°C"),
          userText("Thanks. Umbrella?"),
        ],
        { tools, parallelToolCalls: false },
      ),
    );
    expect(sent.messages[2].content.map((block: { type: string }) => block.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(sent.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
  });

  it("foreign tool ids (OpenAI call_… with a dot) and foreign reasoning, with thinking asked for", async () => {
    const openaiTurn: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "reasoning", text: "o3 thoughts", providerData: { origin: "openai", data: { encrypted: "gAAAA" } } },
        call("call_abc.def", "get_weather", { city: "Oslo" }),
      ],
    };
    rules = { knownSignatures: issued };
    try {
      const sent = await accepted(request([userText("Oslo?"), openaiTurn, resultOf("call_abc.def", "-3°C")], { tools, reasoning: { effort: "medium" } }));
      expect(sent.messages[1].content).toEqual([{ type: "tool_use", id: sent.messages[2].content[0].tool_use_id, name: "get_weather", input: { city: "Oslo" } }]);
      expect(sent.thinking).toBeUndefined();
    } finally {
      rules = {};
    }
  });

  it("a messy history: system in the middle, empty text, leading assistant, stray and missing results, trailing space", async () => {
    await accepted(
      request(
        [
          { role: "assistant", content: [{ type: "text", text: "Hi! Ask me anything." }] },
          { role: "system", content: [{ type: "text", text: "Be brief." }] },
          { role: "user", content: [{ type: "text", text: "" }] },
          userText("Weather?"),
          { role: "assistant", content: [{ type: "text", text: " " }, call("toolu_1", "get_weather", { city: "Rome" }), call("toolu_2", "get_time", {})] },
          resultOf("toolu_1", "25°C"),
          resultOf("toolu_404", "stray"),
          { role: "assistant", content: [{ type: "text", text: "It is 25°C. " }] },
        ],
        { tools },
      ),
    );
  });

  it("a streamed thinking + tool_use turn goes back with its signature intact, and thinking stays on", async () => {
    rules = { knownSignatures: issued };
    try {
      const adapter = adapterAt(server.url);
      respond = replyWith(
        answer(
          [
            { type: "thinking", thinking: "Need the weather tool.", signature },
            { type: "tool_use", id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", input: { city: "Paris" } },
          ],
          "tool_use",
        ),
      );
      const question = userText("Paris?");
      const first = lastResult(await collect(adapter.stream(request([question], { tools, reasoning: { effort: "low" } }))));
      expect(first.message.content[0]).toEqual({ type: "reasoning", text: "Need the weather tool.", providerData: { origin: PROVIDER, data: { signature } } });

      respond = replyWith(answer([{ type: "text", text: "18°C in Paris." }]));
      const second = lastResult(
        await collect(adapter.stream(request([question, first.message, resultOf("toolu_01A09q90qw90lq917835lq9", "18°C")], { tools, reasoning: { effort: "low" } }))),
      );
      expect(second.message.content).toEqual([{ type: "text", text: "18°C in Paris." }]);
      const sent = server.requests.at(-1)?.body;
      expect(sent.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
      expect(sent.messages[1].content[0]).toEqual({ type: "thinking", thinking: "Need the weather tool.", signature });
    } finally {
      rules = {};
    }
  });

  it("a request the API would reject comes back as the real 400 (the server can fail)", async () => {
    respond = replyWith(answer([{ type: "text", text: "unreachable" }]));
    const twice = { name: "search", inputSchema: { type: "object" } };
    const bad = request([userText("search")], { tools: [twice, twice] });
    const error = await completeError(adapterAt(server.url).complete(bad));
    expect(error.status).toBe(400);
    expect(error.type).toBe("invalid_request_error");
    expect(error.retryable).toBe(false);
    expect(error.message).toBe("anthropic: tools: Tool names must be unique.");
  });

  it.each(["complete", "stream"] as const)("a client's tool name Anthropic refuses (github/search) goes out renamed and comes back as the client's (%s)", async (mode) => {
    const searchTools = [{ name: "github/search", inputSchema: { type: "object", properties: { q: { type: "string" } } } }];
    respond = replyWith(answer([{ type: "tool_use", id: "toolu_1", name: "github_search", input: { q: "mcp" } }], "tool_use"));
    const adapter = adapterAt(server.url);
    const ask = request([userText("search")], { tools: searchTools, toolChoice: { type: "tool", name: "github/search" } });
    const first = mode === "complete" ? await adapter.complete(ask) : lastResult(await collect(adapter.stream(ask)));
    expect(first.message.content).toEqual([expect.objectContaining({ type: "tool_call", id: "toolu_1", name: "github/search", arguments: { q: "mcp" } })]);
    const sent = server.requests.at(-1)?.body;
    expect(sent.tools.map((t: { name: string }) => t.name)).toEqual(["github_search"]);
    expect(sent.tool_choice).toMatchObject({ type: "tool", name: "github_search" });
    // The follow-up's history carries the call under the client's name; it goes out renamed again.
    respond = replyWith(answer([{ type: "text", text: "found" }]));
    await accepted(request([userText("search"), first.message, resultOf("toolu_1", "3 results")], { tools: searchTools }));
    expect(server.requests.at(-1)?.body.messages[1].content[0]).toMatchObject({ type: "tool_use", name: "github_search" });
  });
});
