/** The chunk translator and tool-call assembler on synthetic edge cases no recording covers. */
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../../src/core/index.ts";
import { ChunkTranslator, fromChatCompletion, toStopReason, type WireChunk } from "../../../src/adapters/openai-chat/index.ts";
import { GatewayError } from "../../../src/core/index.ts";
import { doneResult, eventOutline } from "./harness.ts";

const context = { provider: "p", model: "requested-model" };

function run(chunks: WireChunk[]): StreamEvent[] {
  const translator = new ChunkTranslator(context);
  return [...chunks.flatMap((chunk) => translator.push(chunk)), ...translator.end()];
}

const c = (delta: object, finish_reason: string | null = null): WireChunk => ({
  id: "id-1",
  model: "m",
  choices: [{ index: 0, delta, finish_reason }],
});

describe("ChunkTranslator", () => {
  it("a tool call without id gets a synthesized one, stable across events and result", () => {
    const events = run([
      c({ tool_calls: [{ index: 0, function: { name: "lookup", arguments: '{"q":' } }] }),
      c({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }, "tool_calls"),
    ]);
    const start = events.find((event) => event.type === "tool_call_start");
    const id = start?.type === "tool_call_start" ? start.id : "";
    expect(id).toMatch(/^call_[0-9a-f]{24}$/);
    const ids = events.flatMap((event) => ("id" in event && event.type.startsWith("tool_call") ? [event.id] : []));
    expect(new Set(ids)).toEqual(new Set([id]));
    expect(doneResult(events).message.content).toEqual([
      { type: "tool_call", id, name: "lookup", arguments: { q: "x" }, rawArguments: '{"q":"x"}' },
    ]);
  });

  it("synthesized ids are unique", () => {
    const ids = new Set(
      Array.from({ length: 50 }, () => {
        const result = fromChatCompletion(
          { choices: [{ message: { tool_calls: [{ function: { name: "t", arguments: "{}" } }] }, finish_reason: "tool_calls" }] },
          context,
        );
        const call = result.message.content[0];
        return call?.type === "tool_call" ? call.id : "";
      }),
    );
    expect(ids.size).toBe(50);
  });

  it("interleaved argument deltas of two indexes are kept apart", () => {
    const events = run([
      c({ tool_calls: [{ index: 0, id: "a", function: { name: "one", arguments: "" } }] }),
      c({ tool_calls: [{ index: 1, id: "b", function: { name: "two", arguments: '{"n":' } }] }),
      c({ tool_calls: [{ index: 0, function: { arguments: '{"m":1' } }] }),
      c({ tool_calls: [{ index: 1, function: { arguments: "2}" } }, { index: 0, function: { arguments: "}" } }] }, "tool_calls"),
    ]);
    expect(doneResult(events).message.content).toMatchObject([
      { id: "a", name: "one", arguments: { m: 1 } },
      { id: "b", name: "two", arguments: { n: 2 } },
    ]);
  });

  it("whole calls all sent at index 0 with different ids become separate calls", () => {
    const events = run([
      c({ tool_calls: [{ index: 0, id: "a", function: { name: "one", arguments: "{}" } }] }),
      c({ tool_calls: [{ index: 0, id: "b", function: { name: "two", arguments: '{"x":1}' } }] }, "tool_calls"),
    ]);
    expect(doneResult(events).message.content).toMatchObject([
      { id: "a", name: "one", arguments: {} },
      { id: "b", name: "two", arguments: { x: 1 } },
    ]);
    expect(events.filter((event) => event.type === "tool_call_start").map((event) => event.type === "tool_call_start" && event.index)).toEqual([0, 1]);
  });

  it("tool_call_start waits for a name that arrives after the first fragment", () => {
    const events = run([
      c({ tool_calls: [{ index: 0, id: "a", function: { arguments: '{"k"' } }] }),
      c({ tool_calls: [{ index: 0, function: { name: "late", arguments: ":1}" } }] }, "tool_calls"),
    ]);
    expect(events.filter((event) => event.type.startsWith("tool_call"))).toEqual([
      { type: "tool_call_start", index: 0, id: "a", name: "late" },
      { type: "tool_call_delta", index: 0, id: "a", delta: '{"k":1}' },
      { type: "tool_call_end", index: 0, call: { type: "tool_call", id: "a", name: "late", arguments: { k: 1 }, rawArguments: '{"k":1}' } },
    ]);
  });

  it("unparsable arguments keep the raw text and report the error", () => {
    const events = run([c({ tool_calls: [{ index: 0, id: "a", function: { name: "t", arguments: "not json at all" } }] }, "tool_calls")]);
    const [call] = doneResult(events).message.content;
    expect(call).toMatchObject({ rawArguments: "not json at all", arguments: {} });
    expect(call?.type === "tool_call" && call.argumentsError).toBeTruthy();
  });

  it("finish_reason stop with tool calls counts as tool_calls; unknown reasons as stop", () => {
    const events = run([c({ tool_calls: [{ index: 0, id: "a", function: { name: "t", arguments: "{}" } }] }, "stop")]);
    expect(doneResult(events).stopReason).toBe("tool_calls");
    expect(toStopReason("eos", false)).toBe("stop");
    expect(toStopReason("function_call", false)).toBe("tool_calls");
    expect(toStopReason("length", true)).toBe("length");
    expect(toStopReason("content_filter", false)).toBe("content_filter");
  });

  it("text, then reasoning again: each run is its own block, in order", () => {
    const events = run([c({ reasoning_content: "think" }), c({ content: "say" }), c({ reasoning_content: "more" }, "stop")]);
    expect(eventOutline(events)).toEqual([
      "start",
      "reasoning_start",
      "reasoning_delta*",
      "reasoning_end",
      "text_start",
      "text_delta*",
      "text_end",
      "reasoning_start",
      "reasoning_delta*",
      "reasoning_end",
      "usage",
      "done",
    ]);
    expect(doneResult(events).message.content.map((block) => block.type)).toEqual(["reasoning", "text", "reasoning"]);
  });

  it("deltas after the finish chunk are ignored, late usage is kept", () => {
    const events = run([
      c({ content: "done" }, "stop"),
      c({ content: " extra" }),
      { id: "id-1", choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } },
    ]);
    expect(doneResult(events).message.content).toEqual([{ type: "text", text: "done" }]);
    expect(doneResult(events).usage).toEqual({ inputTokens: 3, outputTokens: 1 });
  });

  it("missing model falls back to the requested one", () => {
    const events = run([{ id: "x", choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] }]);
    expect(events[0]).toEqual({ type: "start", id: "x", model: "requested-model" });
  });

  it("no chunks at all: protocol error", () => {
    expect(() => run([])).toThrow(GatewayError);
  });
});

describe("fromChatCompletion edge cases", () => {
  it("refusal: text block and content_filter", () => {
    const result = fromChatCompletion(
      { id: "r", model: "m", choices: [{ index: 0, message: { content: null, refusal: "I can't help with that." }, finish_reason: "stop" }] },
      context,
    );
    expect(result.message.content).toEqual([{ type: "text", text: "I can't help with that." }]);
    expect(result.stopReason).toBe("content_filter");
  });

  it("content as an array of parts: the text parts are joined", () => {
    const result = fromChatCompletion(
      { choices: [{ message: { content: [{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }] }, finish_reason: "stop" }] },
      context,
    );
    expect(result.message.content).toEqual([{ type: "text", text: "ab" }]);
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("no choices: protocol error", () => {
    expect(() => fromChatCompletion({ id: "x", choices: [] }, context)).toThrow(/no choice 0/);
  });
});
