/**
 * Each quirk switch, turned off in the preset that needs it, lets the provider's real error
 * through (as a GatewayError with the provider's status and text); on, the same request passes.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/index.ts";
import { GatewayError } from "../../../src/core/index.ts";
import { ToolRegistry } from "../../../src/mcp/registry/registry.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../../helpers/strict-fakes/index.ts";
import { FINAL_ANSWER } from "../../helpers/strict-fakes/conversation.ts";
import { DEEPSEEK_LEGACY_REASONER, DEEPSEEK_REASONING_REFUSED, deepseekMissingReasoning } from "../../helpers/strict-fakes/deepseek.ts";
import { GEMINI_INVALID_NAME, GEMINI_MISSING_SIGNATURE, GEMINI_TURN_ORDER } from "../../helpers/strict-fakes/gemini.ts";
import { GLM_ILLEGAL_MESSAGES } from "../../helpers/strict-fakes/glm.ts";
import { localFamily, VLLM_AUTO_TOOL_CHOICE } from "../../helpers/strict-fakes/local.ts";
import { MISTRAL_TRAILING_ASSISTANT, MISTRAL_USER_AFTER_TOOL, mistralIdError } from "../../helpers/strict-fakes/mistral.ts";
import {
  GROQ_FAIL_TRIGGER,
  GROQ_TOOL_USE_FAILED,
  OPENAI_MAX_TOKENS_ERROR,
  OPENAI_PARALLEL_WITHOUT_TOOLS,
  XAI_TOOL_CHOICE_WITHOUT_TOOLS,
} from "../../helpers/strict-fakes/openai.ts";
import type { FakeFamily } from "../../helpers/strict-fakes/strict-fake.ts";
import { adapterFor, callModel, callsOf, converse, MODES, opening, rejectionOf, request, textOf, toolResults, TOOLS, type Mode } from "./harness.ts";

let fake: StrictFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(family: FakeFamily | string): Promise<StrictFake> {
  fake = await startStrictFake(typeof family === "string" ? FAMILIES[family]!() : family);
  return fake;
}

/** The provider's error, as the adapter hands it on. */
function expectProviderError(error: unknown, status: number, text: string): void {
  expect(error).toBeInstanceOf(GatewayError);
  const gatewayError = error as GatewayError;
  expect(gatewayError.status).toBe(status);
  expect(gatewayError.message).toContain(text);
  expect(gatewayError.provider).toBe("prov");
}

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const system: Message = { role: "system", content: [{ type: "text", text: "You are a helpful assistant." }] };

/** A history whose tool turn came from another provider (OpenAI ids), ending with its results. */
function foreignToolTurn(): Message[] {
  return [
    { role: "assistant", content: [{ type: "tool_call", id: "call_PTLP8xhu3uwZk4l3nlnrrJha", name: "get_weather", arguments: { city: "Rome" }, rawArguments: '{"city":"Rome"}' }] },
    { role: "tool", content: [{ type: "tool_result", callId: "call_PTLP8xhu3uwZk4l3nlnrrJha", name: "get_weather", content: [{ type: "text", text: "21°C" }], isError: false }] },
  ];
}

describe.each(MODES)("quirk switches (%s)", (mode: Mode) => {
  describe("zhipu", () => {
    it("assistantContentString: off, the replayed tool turn has content null -> 1214", async () => {
      const f = await start("zhipu");
      expectProviderError(await rejectionOf(converse(adapterFor(f, { preset: "zhipu", assistantContentString: false }), mode)), 400, GLM_ILLEGAL_MESSAGES);
      expect(f.rejections[0]!.body).toEqual({ error: { code: "1214", message: GLM_ILLEGAL_MESSAGES } });
    });

    it("ensureUserMessage: a conversation without a user turn -> 1214 off, answered on", async () => {
      const f = await start("zhipu");
      const noUser = [system, ...foreignToolTurn()];
      const off = adapterFor(f, { preset: "zhipu", ensureUserMessage: false });
      expectProviderError(await rejectionOf(callModel(off, request(noUser), mode)), 400, GLM_ILLEGAL_MESSAGES);
      const on = await callModel(adapterFor(f, "zhipu"), request(noUser), mode);
      expect(textOf(on.message)).toBe(FINAL_ANSWER);
      expect(f.requests.at(-1)!.body.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    });

    it("toolTypeFunction: tools passed through `extra` without type -> 'tools[0].type:type cannot be empty.'", async () => {
      const f = await start("zhipu");
      const rawTools = TOOLS.map((tool) => ({ function: { name: tool.name, parameters: tool.inputSchema } }));
      const chat = request(opening(), { extra: { tools: rawTools } });
      const off = adapterFor(f, { preset: "zhipu", toolTypeFunction: false });
      expectProviderError(await rejectionOf(callModel(off, chat, mode)), 400, "tools[0].type:type cannot be empty.");
      expect(callsOf((await callModel(adapterFor(f, "zhipu"), chat, mode)).message)).toHaveLength(2);
    });
  });

  describe("mistral", () => {
    it("toolCallIds: foreign ids in the history -> code 3280 off, mapped to 9 characters on", async () => {
      const f = await start("mistral");
      const history = [...opening(), ...foreignToolTurn(), user("And the time there?")];
      const off = adapterFor(f, { preset: "mistral", toolCallIds: "as-is" });
      expectProviderError(await rejectionOf(callModel(off, request(history), mode)), 400, mistralIdError("call_PTLP8xhu3uwZk4l3nlnrrJha"));
      expect(f.rejections[0]!.body).toMatchObject({ type: "invalid_function_call", code: "3280" });
      await callModel(adapterFor(f, "mistral"), request(history), mode);
      const sent = f.requests.at(-1)!.body.messages;
      const id = sent.find((m: any) => m.tool_calls).tool_calls[0].id;
      expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
      expect(sent.find((m: any) => m.role === "tool").tool_call_id).toBe(id);
    });

    it("bridgeUserAfterTool: a user message after tool results -> code 3230 off, bridged on", async () => {
      const f = await start("mistral");
      const { messages } = await converse(adapterFor(f, "mistral"), mode);
      const followUp = [...messages.slice(0, -1), user("And tomorrow?")];
      const off = adapterFor(f, { preset: "mistral", bridgeUserAfterTool: false });
      expectProviderError(await rejectionOf(callModel(off, request(followUp), mode)), 400, MISTRAL_USER_AFTER_TOOL);
      expect(f.rejections[0]!.body).toMatchObject({ type: "invalid_request_message_order", code: "3230" });
      await callModel(adapterFor(f, "mistral"), request(followUp), mode);
      expect(f.requests.at(-1)!.body.messages.slice(-3).map((m: any) => m.role)).toEqual(["tool", "assistant", "user"]);
    });

    it("prefixTrailingAssistant: a prefill (assistant message last) -> 3230 off, sent with prefix: true on", async () => {
      const f = await start("mistral");
      const prefill: Message[] = [...opening(), { role: "assistant", content: [{ type: "text", text: "The weather in Paris is" }] }];
      const off = adapterFor(f, { preset: "mistral", prefixTrailingAssistant: false });
      expectProviderError(await rejectionOf(callModel(off, request(prefill), mode)), 400, MISTRAL_TRAILING_ASSISTANT);
      expect(f.rejections[0]!.body).toMatchObject({ type: "invalid_request_message_order", code: "3230" });
      await callModel(adapterFor(f, "mistral"), request(prefill), mode);
      const sent = f.requests.at(-1)!.body.messages;
      expect(sent.at(-1)).toEqual({ role: "assistant", content: "The weather in Paris is", prefix: true });
      // Only the last message: earlier assistant turns are history, not a prefix.
      expect(sent.slice(0, -1).some((m: any) => "prefix" in m)).toBe(false);
    });
  });

  describe("gemini", () => {
    const clientTools = [
      { name: "github/search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
      { name: "1clock", inputSchema: { type: "object", properties: { zone: { type: "string" } } } },
    ];

    it("functionNames: invalid names -> 'Invalid function name' off; renamed and mapped back exactly on", async () => {
      const f = await start("gemini");
      const chat = request(opening(), { tools: clientTools });
      const off = adapterFor(f, { preset: "gemini", functionNames: "as-is" });
      expectProviderError(await rejectionOf(callModel(off, chat, mode)), 400, GEMINI_INVALID_NAME);
      const on = await callModel(adapterFor(f, "gemini"), chat, mode);
      expect(callsOf(on.message).map((call) => call.name)).toEqual(["github/search", "1clock"]);
      expect(f.requests.at(-1)!.body.tools.map((t: any) => t.function.name)).toEqual(["github_search", "_1clock"]);
    });

    it("toolSchemas: a client schema with additionalProperties -> 'Unknown name … Cannot find field' off", async () => {
      const f = await start("gemini");
      const strictSchema = { type: "object", properties: { city: { type: ["string", "null"] } }, additionalProperties: false, $schema: "http://json-schema.org/draft-07/schema#" };
      const chat = request(opening(), { tools: [{ name: "get_weather", inputSchema: strictSchema }, TOOLS[1]!] });
      const off = adapterFor(f, { preset: "gemini", toolSchemas: "as-is" });
      const error = await rejectionOf(callModel(off, chat, mode));
      expectProviderError(error, 400, "Invalid JSON payload received. Unknown name");
      expect(error.message).toContain("Cannot find field.");
      expect(callsOf((await callModel(adapterFor(f, "gemini"), chat, mode)).message)).toHaveLength(2);
    });

    it("thoughtSignatures: the tool turn replayed without its signature -> 'missing a thought_signature' off", async () => {
      const f = await start("gemini");
      const off = adapterFor(f, { preset: "gemini", thoughtSignatures: false });
      expectProviderError(await rejectionOf(converse(off, mode)), 400, GEMINI_MISSING_SIGNATURE);
    });

    it("signatures are checked on the current turn only: an earlier turn without one passes", async () => {
      const f = await start("gemini");
      const history = [...opening(), ...foreignToolTurn(), user("Now Paris, please.")];
      const { second } = await converse(adapterFor(f, "gemini"), mode, {}, history);
      expect(textOf(second.message)).toBe(FINAL_ANSWER);
    });

    it("ensureUserMessage: a history starting with a function call -> turn-order error off", async () => {
      const f = await start("gemini");
      const startsWithCall = [system, ...foreignToolTurn()];
      const off = adapterFor(f, { preset: "gemini", ensureUserMessage: false });
      expectProviderError(await rejectionOf(callModel(off, request(startsWithCall), mode)), 400, GEMINI_TURN_ORDER);
      expect(textOf((await callModel(adapterFor(f, "gemini"), request(startsWithCall), mode)).message)).toBe(FINAL_ANSWER);
      // The foreign call is now in the current turn: it gets the documented placeholder signature.
      const sent = f.requests.at(-1)!.body.messages.find((m: any) => m.tool_calls);
      expect(sent.tool_calls[0].extra_content).toEqual({ google: { thought_signature: "skip_thought_signature_validator" } });
    });
  });

  describe("deepseek", () => {
    it("replayReasoning: off, the tool turn goes back without reasoning_content -> 'Missing `reasoning_content` field'", async () => {
      const f = await start("deepseek");
      const off = adapterFor(f, { preset: "deepseek", replayReasoning: "off" });
      expectProviderError(await rejectionOf(converse(off, mode, { model: "deepseek-v4-flash" })), 400, deepseekMissingReasoning(2));
    });

    it("a tool turn from another provider gets an empty reasoning_content", async () => {
      const f = await start("deepseek");
      const history = [...opening(), ...foreignToolTurn(), user("And Paris?")];
      await callModel(adapterFor(f, "deepseek"), request(history, { model: "deepseek-v4-flash" }), mode);
      expect(f.rejections).toEqual([]);
      expect(f.requests[0]!.body.messages.find((m: any) => m.role === "assistant").reasoning_content).toBe("");
    });

    it("replayReasoningExceptModels: an R1-era reasoner not listed gets reasoning back -> 'intermediate result' error", async () => {
      const f = await start("deepseek");
      expectProviderError(await rejectionOf(converse(adapterFor(f, "deepseek"), mode, { model: DEEPSEEK_LEGACY_REASONER })), 400, DEEPSEEK_REASONING_REFUSED);
    });
  });

  describe("minimax", () => {
    it("thinkTags: off, the think block shows as text and no reasoning is read", async () => {
      const f = await start("minimax");
      const { first } = await converse(adapterFor(f, { preset: "minimax", thinkTags: false }), mode);
      expect(textOf(first.message)).toContain("<think>");
      expect(first.message.content.some((block) => block.type === "reasoning")).toBe(false);
    });

    it("reasoningDetails: with reasoning_split, the details go back verbatim on; off, they are lost", async () => {
      const f = await start("minimax");
      const split = { extra: { reasoning_split: true } };
      const on = await converse(adapterFor(f, "minimax"), mode, split);
      expect(on.first.message.content[0]).toMatchObject({ type: "reasoning", text: "\nThe user asks two things. I will call both tools.\n" });
      const sentDetails = (f.family as any).sent[0].reasoning_details;
      expect(f.requests[1]!.body.messages.find((m: any) => m.role === "assistant").reasoning_details).toEqual(sentDetails);
      await converse(adapterFor(f, { preset: "minimax", reasoningDetails: false }), mode, split);
      expect(f.requests[3]!.body.messages.find((m: any) => m.role === "assistant").reasoning_details).toBeUndefined();
    });
  });

  describe("local servers", () => {
    it("vllm toolChoice: 'send' passes tool_choice auto -> vLLM's flag error", async () => {
      const f = await start("vllm");
      const off = adapterFor(f, { preset: "vllm", toolChoice: "send" });
      expectProviderError(await rejectionOf(callModel(off, request(opening()), mode)), 400, VLLM_AUTO_TOOL_CHOICE);
    });

    it("vllm textToolCalls: off, the printed calls stay text and the turn ends with stop", async () => {
      const f = await start("vllm");
      const result = await callModel(adapterFor(f, { preset: "vllm", textToolCalls: "off" }), request(opening()), mode);
      expect(callsOf(result.message)).toEqual([]);
      expect(textOf(result.message)).toContain("<tool_call>");
      expect(result.stopReason).toBe("stop");
    });

    it("vllm: calls printed with their last '}' missing are repaired, not errors", async () => {
      const f = await start(localFamily("vllm", { brokenHermes: true }));
      const result = await callModel(adapterFor(f, "vllm"), request(opening()), mode);
      expect(callsOf(result.message).map((call) => [call.name, call.arguments, call.argumentsError])).toEqual([
        ["get_weather", { city: "Paris" }, undefined],
        ["get_time", { zone: "Europe/Paris" }, undefined],
      ]);
    });

    it("textToolCalls needs offered tools: without tools the text stays text", async () => {
      const f = await start("vllm");
      const result = await callModel(adapterFor(f, "vllm"), { model: "m", messages: opening() }, mode);
      expect(callsOf(result.message)).toEqual([]);
      expect(textOf(result.message)).toContain("<tool_call>");
    });

    it("lmstudio: its empty ids get ids, so the history it refuses with '' is never sent", async () => {
      const f = await start("lmstudio");
      const { second } = await converse(adapterFor(f, "lmstudio"), mode);
      expect(f.rejections).toEqual([]);
      expect(textOf(second.message)).toBe(FINAL_ANSWER);
    });
  });

  describe("every provider", () => {
    it("functionNames openai: a client's `fs.read` / `github/search` / 70-character names -> OpenAI's pattern error off; renamed and mapped back on", async () => {
      const f = await start("openai");
      const long = `search_${"x".repeat(63)}`;
      const clientTools = ["fs.read", "github/search", long].map((name) => ({ name, inputSchema: { type: "object", properties: { q: { type: "string" } } } }));
      const chat = request(opening(), { tools: clientTools });
      const off = adapterFor(f, { functionNames: "as-is" });
      expectProviderError(await rejectionOf(callModel(off, chat, mode)), 400, "string does not match pattern");
      const on = await callModel(adapterFor(f, "openai"), chat, mode);
      expect(callsOf(on.message).map((call) => call.name)).toEqual(["fs.read", "github/search"]);
      const sent = f.requests.at(-1)!.body.tools.map((t: any) => t.function.name);
      expect(sent.slice(0, 2)).toEqual(["fs_read", "github_search"]);
      expect(sent[2]).toMatch(/^search_x+_[0-9a-f]{8}$/);
      expect(sent[2].length).toBeLessThanOrEqual(64);
      // The history's calls go out renamed too, and the provider accepts the follow-up.
      await callModel(adapterFor(f, "openai"), request([...opening(), on.message, toolResults(callsOf(on.message))], { tools: clientTools }), mode);
      expect(f.rejections).toHaveLength(1);
      expect(f.requests.at(-1)!.body.messages.find((m: any) => m.tool_calls).tool_calls.map((c: any) => c.function.name)).toEqual(["fs_read", "github_search"]);
    });

    it("an MCP tool with an array without items: its raw schema gets OpenAI's 'array schema missing items'; the registry's openai form passes", async () => {
      const f = await start("openai");
      const raw = { type: "object", properties: { paths: { type: "array", description: "Files" }, city: { type: "string" } } };
      const registry = new ToolRegistry(1, [{ name: "files__read_many", server: "files", tool: { name: "read_many", inputSchema: raw as never } }], async () => ({ content: [] }));
      const direct = await rejectionOf(callModel(adapterFor(f, "openai"), request(opening(), { tools: [{ name: "files__read_many", inputSchema: raw }] }), mode));
      expectProviderError(direct, 400, "Invalid schema for function 'files__read_many': In context=('properties', 'paths'), array schema missing items.");
      expect(direct.code).toBe("invalid_function_parameters");
      await callModel(adapterFor(f, "openai"), request(opening(), { tools: registry.definitions("openai") }), mode);
      expect(f.requests.at(-1)!.body.tools[0].function.parameters.properties.paths).toEqual({ type: "array", description: "Files", items: {} });
    });

    it("stripToolFieldsWithoutTools: tool_choice through `extra` without tools -> xAI's error off", async () => {
      const f = await start("xai");
      const chat = { model: "grok-4", messages: opening(), extra: { tool_choice: "auto" } };
      const off = adapterFor(f, { preset: "xai", stripToolFieldsWithoutTools: false });
      expectProviderError(await rejectionOf(callModel(off, chat, mode)), 400, XAI_TOOL_CHOICE_WITHOUT_TOOLS);
      expect(f.rejections[0]!.body).toEqual({ code: "Client specified an invalid argument", error: XAI_TOOL_CHOICE_WITHOUT_TOOLS });
      await callModel(adapterFor(f, "xai"), chat, mode);
      expect(f.requests.at(-1)!.body.tool_choice).toBeUndefined();
    });

    it("stripToolFieldsWithoutTools: parallel_tool_calls through `extra` without tools -> OpenAI's error off", async () => {
      const f = await start("openai");
      const chat = { model: "gpt-4o", messages: opening(), extra: { parallel_tool_calls: true } };
      const off = adapterFor(f, { stripToolFieldsWithoutTools: false });
      expectProviderError(await rejectionOf(callModel(off, chat, mode)), 400, OPENAI_PARALLEL_WITHOUT_TOOLS);
      await callModel(adapterFor(f, "openai"), chat, mode);
      expect(f.requests.at(-1)!.body.parallel_tool_calls).toBeUndefined();
    });

    it("maxTokensField: an OpenAI reasoning model refuses max_tokens (recorded 400), so it always gets max_completion_tokens; other models get the switch's field", async () => {
      const f = await start("openai");
      const chat = request(opening(), { model: "o4-mini", maxTokens: 500 });
      await callModel(adapterFor(f, "openai"), { ...chat, openaiFields: { max_completion_tokens: 500 } }, mode);
      expect(f.requests.at(-1)!.body.max_completion_tokens).toBe(500);
      expect(f.requests.at(-1)!.body.max_tokens).toBeUndefined();
      await callModel(adapterFor(f, { maxTokensField: "max_tokens" }), chat, mode);
      expect(f.requests.at(-1)!.body.max_completion_tokens).toBe(500);
      expect(f.requests.at(-1)!.body.max_tokens).toBeUndefined();
      // The fake refuses max_tokens for it with OpenAI's recorded error: the gateway never sends it.
      expect(f.rejections.map((r) => r.message)).not.toContain(OPENAI_MAX_TOKENS_ERROR);
      await callModel(adapterFor(f, { maxTokensField: "max_tokens" }), request(opening(), { model: "gpt-4.1", maxTokens: 500 }), mode);
      expect(f.requests.at(-1)!.body.max_tokens).toBe(500);
    });

    it("groq retryToolUseFailed: tool_use_failed is retryable and shows the failed generation; off, it is not", async () => {
      const f = await start("groq");
      const chat = request([user(`${GROQ_FAIL_TRIGGER}: weather in Paris?`)]);
      const on = await rejectionOf(callModel(adapterFor(f, "groq"), chat, mode));
      expectProviderError(on, 400, GROQ_TOOL_USE_FAILED);
      expect(on.retryable).toBe(true);
      expect(on.code).toBe("tool_use_failed");
      expect(on.message).toContain('failed_generation: <function=get_weather{"city": "Paris"}</function>');
      const off = await rejectionOf(callModel(adapterFor(f, { preset: "groq", retryToolUseFailed: false }), chat, mode));
      expectProviderError(off, 400, GROQ_TOOL_USE_FAILED);
      expect(off.retryable).toBe(false);
    });
  });
});

describe("objectArguments (llama.cpp sends arguments as objects, non-streamed)", () => {
  it("on: the object becomes JSON text and a normal call; off: the response cannot be read", async () => {
    const f = await start("llamacpp");
    const on = await callModel(adapterFor(f, "llamacpp"), request(opening()), "complete");
    expect(callsOf(on.message).map((call) => [call.arguments, call.rawArguments])).toEqual([
      [{ city: "Paris" }, '{"city":"Paris"}'],
      [{ zone: "Europe/Paris" }, '{"zone":"Europe/Paris"}'],
    ]);
    const off = await rejectionOf(callModel(adapterFor(f, { preset: "llamacpp", objectArguments: false }), request(opening()), "complete"));
    expect(off).toBeInstanceOf(GatewayError);
    expect(off.status).toBe(500);
  });
});
