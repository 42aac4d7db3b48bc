/** The request steps as pure functions on wire bodies, and the maps they rely on. */
import { describe, expect, it } from "vitest";
import { applyRequestQuirks, RequestQuirks, resolveQuirks, type WireRequest } from "../../../src/adapters/quirks/index.ts";
import { FunctionNameMap } from "../../../src/adapters/quirks/function-names.ts";
import { matchesModel, modelMatcher } from "../../../src/adapters/quirks/request/model-patterns.ts";
import { geminiParameters } from "../../../src/adapters/quirks/request/tool-schemas.ts";
import type { ChatRequest, JsonSchema } from "../../../src/core/index.ts";
import { normalizeSchema } from "../../../src/core/schema/index.ts";
import { firstRejection } from "../../helpers/strict-fakes/strict-fake.ts";
import { glmFamily } from "../../helpers/strict-fakes/glm.ts";

const chat: ChatRequest = { model: "m", messages: [] };

function apply(body: WireRequest, quirks: string | Record<string, unknown>) {
  return applyRequestQuirks(body, { request: chat, provider: "p", quirks: resolveQuirks(quirks).switches }).body;
}

describe("flattenContent (GLM drops or refuses list content on tool/assistant messages)", () => {
  const body: WireRequest = {
    model: "glm-4.7",
    messages: [
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://x/y.png" } }] },
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "22.5°C" }] },
    ],
  };

  it("off: the GLM fake refuses the list content with its real error", () => {
    const rejection = firstRejection(glmFamily().rules, apply(body, { preset: "zhipu", flattenContent: false }));
    expect(rejection?.message).toBe("messages[1].content[0].type type error");
  });

  it("on: tool and assistant content become strings, user parts (images) stay", () => {
    const out = apply(body, "zhipu");
    expect(out.messages.map((m) => m.content)).toEqual([body.messages[0]!.content, "a\nb", "22.5°C"]);
    expect(firstRejection(glmFamily().rules, out)).toBeUndefined();
  });
});

describe("tool-call ids for Mistral", () => {
  const body = (ids: string[]): WireRequest => ({
    model: "m",
    messages: ids.flatMap((id) => [
      { role: "assistant", content: null, tool_calls: [{ id, type: "function", function: { name: "f", arguments: "{}" } }] },
      { role: "tool", tool_call_id: id, content: "ok" },
    ]),
  });

  it("the same id maps the same way in every request, and 9-character ids stay", () => {
    const first = apply(body(["call_PTLP8xhu3uwZk4l3nlnrrJha"]), "mistral");
    const later = apply(body(["call_PTLP8xhu3uwZk4l3nlnrrJha", "D681PevKs"]), "mistral");
    const idsOf = (b: WireRequest) => b.messages.map((m) => m.tool_calls?.[0]?.id ?? m.tool_call_id);
    expect(idsOf(first)[0]).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(idsOf(later)).toEqual([idsOf(first)[0], idsOf(first)[0], "D681PevKs", "D681PevKs"]);
  });
});

describe("FunctionNameMap", () => {
  it("valid names never change, invalid ones get a free valid name, whatever the order", () => {
    const a = new FunctionNameMap(["_1tool", "1tool", "fs.read", "a/b"]);
    const b = new FunctionNameMap(["a/b", "1tool", "fs.read", "_1tool"]);
    for (const map of [a, b]) {
      expect(map.wire("_1tool")).toBe("_1tool");
      expect(map.wire("fs.read")).toBe("fs.read");
      expect(map.wire("a/b")).toBe("a_b");
      expect(map.wire("1tool")).toMatch(/^_1tool_[0-9a-f]{8}$/);
      expect(map.original(map.wire("1tool"))).toBe("1tool");
    }
    expect(a.wire("1tool")).toBe(b.wire("1tool"));
  });

  it("long names are cut to 64 with a hash, and map back", () => {
    const long = `x/${"y".repeat(80)}`;
    const map = new FunctionNameMap([long]);
    expect(map.wire(long)).toHaveLength(64);
    expect(map.original(map.wire(long))).toBe(long);
  });
});

describe("model patterns", () => {
  it("exact ids and * wildcards, case-insensitive", () => {
    expect(matchesModel("deepseek-reasoner", ["deepseek-reasoner"])).toBe(true);
    expect(matchesModel("DeepSeek-Reasoner", ["deepseek-reasoner"])).toBe(true);
    expect(matchesModel("deepseek-reasoner-v2", ["deepseek-reasoner"])).toBe(false);
    expect(matchesModel("deepseek-r1-distill", ["deepseek-r1*"])).toBe(true);
    expect(matchesModel("a.b", ["a*b"])).toBe(true);
    expect(matchesModel("axb", ["a.b"])).toBe(false);
  });

  it("a compiled matcher tests against any of its patterns, and an empty list matches nothing", () => {
    const excepted = modelMatcher(["deepseek-reasoner", "o1-*", "a|b"]);
    expect(["deepseek-reasoner", "O1-mini", "a|b"].map(excepted)).toEqual([true, true, true]);
    expect(["deepseek-chat", "xo1-mini", "a", "b"].map(excepted)).toEqual([false, false, false, false]);
    expect(modelMatcher([])("anything")).toBe(false);
  });
});

describe("gemini tool schemas (normalized once per schema object)", () => {
  const raw = (): JsonSchema => ({
    type: "object",
    properties: { path: { type: "string", format: "uri" }, depth: { type: ["integer", "null"] } },
    required: ["path"],
    additionalProperties: false,
  });
  const body = (parameters: JsonSchema): WireRequest => ({
    model: "gemini-2.5-flash",
    messages: [{ role: "user", content: "hi" }],
    tools: [{ type: "function", function: { name: "read", parameters } }],
  });

  it("gives what the normalizer gives, the same object for the same schema object", () => {
    const schema = raw();
    const first = geminiParameters(schema);
    expect(first).toEqual(normalizeSchema(raw(), "gemini").schema);
    expect(geminiParameters(schema)).toBe(first);
    // A new object with the same content (a client's tool in the next request) is normalized anew.
    const again = geminiParameters(raw());
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });

  it("a stable schema object (an MCP tool) gives the identical parameters in every request", () => {
    const schema = raw();
    const quirks = new RequestQuirks("p", resolveQuirks("gemini").switches);
    const first = quirks.apply(body(schema), chat).body.tools![0]!.function.parameters;
    const second = quirks.apply(body(schema), chat).body.tools![0]!.function.parameters;
    expect(second).toBe(first);
    expect(first).toEqual(normalizeSchema(schema, "gemini").schema);
    expect(schema).toEqual(raw());
  });

  it("a tool without parameters still gets a valid object schema", () => {
    const out = apply({ model: "m", messages: [], tools: [{ type: "function", function: { name: "ping" } }] }, "gemini");
    expect(out.tools![0]!.function.parameters).toEqual(normalizeSchema(undefined, "gemini").schema);
  });
});

describe("RequestQuirks (built once per adapter)", () => {
  const deepseekChat: ChatRequest = {
    model: "deepseek-chat",
    messages: [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "reasoning", text: "hmm", providerData: { origin: "p", data: {} } }, { type: "tool_call", id: "c1", name: "f", arguments: {}, rawArguments: "{}" }] },
    ],
  };
  const wire = (model: string): WireRequest => ({
    model,
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "f", arguments: "{}" } }], reasoning_content: "stale" },
    ],
  });

  it("one instance serves every request like a fresh build, with the except-models patterns compiled in", () => {
    const switches = resolveQuirks({ preset: "deepseek", replayReasoningExceptModels: ["deepseek-r1-*"] }).switches;
    const quirks = new RequestQuirks("p", switches);
    for (const model of ["deepseek-chat", "deepseek-r1-legacy", "DeepSeek-R1-Legacy", "deepseek-reasoner", "deepseek-chat"]) {
      const request = { ...deepseekChat, model };
      expect(quirks.apply(wire(model), request)).toEqual(applyRequestQuirks(wire(model), { request, provider: "p", quirks: switches }));
    }
    expect(quirks.apply(wire("deepseek-chat"), deepseekChat).body.messages[1]!.reasoning_content).toBe("hmm");
    expect(quirks.apply(wire("deepseek-reasoner"), { ...deepseekChat, model: "deepseek-reasoner" }).body.messages[1]!.reasoning_content).toBe("hmm");
    expect(quirks.apply(wire("deepseek-r1-legacy"), { ...deepseekChat, model: "deepseek-r1-legacy" }).body.messages[1]!.reasoning_content).toBeUndefined();
  });

  it("reads the switches when built: later changes to the object do not reach it", () => {
    const switches = resolveQuirks("openai").switches;
    const quirks = new RequestQuirks("p", switches);
    switches.ensureUserMessage = true;
    const body: WireRequest = { model: "m", messages: [{ role: "assistant", content: "x" }] };
    expect(quirks.apply(body, chat).body).toEqual(body);
  });
});

describe("tool fields", () => {
  it("an empty tools array goes with tool_choice and parallel_tool_calls", () => {
    const out = apply({ model: "m", messages: [], tools: [], tool_choice: "auto", parallel_tool_calls: true }, "openai");
    expect(out).toEqual({ model: "m", messages: [] });
  });

  it("vLLM: tool_choice auto is left out, required and named choices stay", () => {
    const tools = [{ type: "function", function: { name: "f" } }];
    expect(apply({ model: "m", messages: [], tools, tool_choice: "auto" }, "vllm").tool_choice).toBeUndefined();
    expect(apply({ model: "m", messages: [], tools, tool_choice: "required" }, "vllm").tool_choice).toBe("required");
  });
});

describe("reasoning replay", () => {
  const reasoningChat: ChatRequest = {
    model: "qwen3",
    messages: [
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "reasoning", text: "thinking", providerData: { origin: "p", data: {} } }, { type: "text", text: "hello" }] },
      { role: "assistant", content: [{ type: "reasoning", text: "not mine", providerData: { origin: "other", data: {} } }, { type: "text", text: "x" }] },
    ],
  };
  const wire = (): WireRequest => ({
    model: "qwen3",
    messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }, { role: "assistant", content: "x" }],
  });

  it("`all` sends this provider's reasoning in the configured field, never another provider's", () => {
    const switches = resolveQuirks({ replayReasoning: "all", reasoningField: "reasoning" }).switches;
    const out = applyRequestQuirks(wire(), { request: reasoningChat, provider: "p", quirks: switches }).body;
    expect(out.messages[1]).toEqual({ role: "assistant", content: "hello", reasoning: "thinking" });
    expect(out.messages[2]).toEqual({ role: "assistant", content: "x" });
  });

  it("`tool-turns` leaves turns without tool calls alone", () => {
    const switches = resolveQuirks({ replayReasoning: "tool-turns" }).switches;
    expect(applyRequestQuirks(wire(), { request: reasoningChat, provider: "p", quirks: switches }).body).toEqual(wire());
  });
});
