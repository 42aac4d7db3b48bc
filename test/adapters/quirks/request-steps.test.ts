/** The request steps as pure functions on wire bodies, and the maps they rely on. */
import { describe, expect, it } from "vitest";
import { applyRequestQuirks, resolveQuirks, type WireRequest } from "../../../src/adapters/quirks/index.ts";
import { FunctionNameMap } from "../../../src/adapters/quirks/function-names.ts";
import { matchesModel } from "../../../src/adapters/quirks/request/model-patterns.ts";
import type { ChatRequest } from "../../../src/core/index.ts";
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
