/**
 * Response mapping details: stop reasons, usage (plain and cumulative in streams), event order.
 */
import { describe, expect, it } from "vitest";
import { fromMessage } from "../../../src/adapters/anthropic/from-response.ts";
import { toStopReason } from "../../../src/adapters/anthropic/stop-reason.ts";
import { streamTranslation } from "../../../src/adapters/anthropic/stream.ts";
import type { WireStreamEvent } from "../../../src/adapters/anthropic/wire.ts";
import type { StreamEvent } from "../../../src/core/index.ts";
import { collect, eventTypes, lastResult, PROVIDER } from "./support.ts";

async function* feed(events: unknown[]): AsyncGenerator<WireStreamEvent> {
  for (const event of events) yield event as WireStreamEvent;
}

/** The translation as the adapter runs it: event by event until `finished`, `end()` if the events ran out first. */
async function* toStreamEvents(events: AsyncIterable<WireStreamEvent>, provider: string): AsyncGenerator<StreamEvent> {
  const translation = streamTranslation(provider);
  for await (const event of events) {
    yield* translation.push(event);
    if (translation.finished) return;
  }
  yield* translation.end();
}

const start = (usage: object) => ({
  type: "message_start",
  message: { id: "msg_u", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, usage },
});

describe("stop reasons", () => {
  it.each([
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["pause_turn", "stop"],
    ["tool_use", "tool_calls"],
    ["max_tokens", "length"],
    ["model_context_window_exceeded", "length"],
    ["refusal", "content_filter"],
    ["something_new", "stop"],
    [null, "stop"],
  ] as const)("%s -> %s", (wire, neutral) => {
    expect(toStopReason(wire)).toBe(neutral);
  });
});

describe("usage", () => {
  it("maps cache and thinking token counts of a Message", () => {
    const result = fromMessage(
      {
        id: "msg_c",
        model: "claude-haiku-4-5",
        content: [{ type: "text", text: "hi", citations: null }],
        stop_reason: "refusal",
        usage: { input_tokens: 20, output_tokens: 300, cache_read_input_tokens: 1000, cache_creation_input_tokens: 50, output_tokens_details: { thinking_tokens: 120 } },
      } as any,
      PROVIDER,
    );
    // inputTokens counts cached input too (20 + 1000 + 50), as OpenAI's prompt_tokens does.
    expect(result.usage).toEqual({ inputTokens: 1070, outputTokens: 300, cacheReadTokens: 1000, cacheWriteTokens: 50, reasoningTokens: 120 });
    expect(result.stopReason).toBe("content_filter");
  });

  it("in a stream, message_delta's cumulative counts replace message_start's; what it leaves null stays", async () => {
    const events = await collect(
      toStreamEvents(
        feed([
          start({ input_tokens: 472, output_tokens: 2, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 }),
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
          { type: "content_block_stop", index: 0 },
          { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 40, input_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: 12 } },
          { type: "message_delta", delta: { stop_reason: null, stop_sequence: null }, usage: { output_tokens: 41, input_tokens: 480 } },
          { type: "message_stop" },
        ]),
        PROVIDER,
      ),
    );
    const usage = { inputTokens: 480 + 1000 + 12, outputTokens: 41, cacheReadTokens: 1000, cacheWriteTokens: 12 };
    expect(events.at(-2)).toEqual({ type: "usage", usage });
    expect(lastResult(events).usage).toEqual(usage);
    expect(lastResult(events).stopReason).toBe("stop");
  });
});

describe("stream assembly", () => {
  it("numbers parallel tool calls 0, 1 by their order, whatever their block index", async () => {
    const tool = (index: number, id: string, json: string[]) => [
      { type: "content_block_start", index, content_block: { type: "tool_use", id, name: "get_weather", input: {} } },
      ...json.map((partial_json) => ({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } })),
      { type: "content_block_stop", index },
    ];
    const events = await collect(
      toStreamEvents(
        feed([
          start({ input_tokens: 10, output_tokens: 1 }),
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "Both cities:" } },
          { type: "content_block_stop", index: 0 },
          ...tool(1, "toolu_A", ["", '{"city": ', '"Paris"}']),
          ...tool(2, "toolu_B", ['{"city": "Oslo"}']),
          { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 60 } },
          { type: "message_stop" },
        ]),
        PROVIDER,
      ),
    );
    expect(eventTypes(events)).toEqual([
      "start",
      "text_start",
      "text_delta",
      "text_end",
      "tool_call_start",
      "tool_call_delta",
      "tool_call_end",
      "tool_call_start",
      "tool_call_delta",
      "tool_call_end",
      "usage",
      "done",
    ]);
    expect(events.filter((event) => event.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "toolu_A", name: "get_weather" },
      { type: "tool_call_start", index: 1, id: "toolu_B", name: "get_weather" },
    ]);
    expect(lastResult(events).message.content).toEqual([
      { type: "text", text: "Both cities:" },
      { type: "tool_call", id: "toolu_A", name: "get_weather", arguments: { city: "Paris" }, rawArguments: '{"city": "Paris"}' },
      { type: "tool_call", id: "toolu_B", name: "get_weather", arguments: { city: "Oslo" }, rawArguments: '{"city": "Oslo"}' },
    ]);
  });

  it("reports unparseable tool input as argumentsError without failing the stream", async () => {
    const events = await collect(
      toStreamEvents(
        feed([
          start({ input_tokens: 1, output_tokens: 1 }),
          { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_X", name: "run", input: {} } },
          { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "[1, 2]" } },
          { type: "content_block_stop", index: 0 },
          { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } },
          { type: "message_stop" },
        ]),
        PROVIDER,
      ),
    );
    expect(lastResult(events).message.content).toEqual([
      { type: "tool_call", id: "toolu_X", name: "run", arguments: {}, rawArguments: "[1, 2]", argumentsError: "tool arguments must be a JSON object" },
    ]);
  });

  it("maps streamed redacted thinking", async () => {
    const events = await collect(
      toStreamEvents(
        feed([
          start({ input_tokens: 1, output_tokens: 1 }),
          { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "EmwKAhgB" } },
          { type: "content_block_stop", index: 0 },
          { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } },
          { type: "message_stop" },
        ]),
        PROVIDER,
      ),
    );
    const block = { type: "reasoning", text: "", redacted: true, providerData: { origin: PROVIDER, data: { redactedData: "EmwKAhgB" } } };
    expect(events).toContainEqual({ type: "reasoning_end", block });
    expect(lastResult(events).message.content).toEqual([block]);
  });
});

describe("usage with prompt caching", () => {
  it("counts cache reads and writes into inputTokens, as OpenAI's prompt_tokens does", async () => {
    const { fromMessage } = await import("../../../src/adapters/anthropic/index.ts");
    const result = fromMessage(
      {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude",
        content: [{ type: "text", text: "hi", citations: null }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 100, cache_creation_input_tokens: 5 },
      } as never,
      "anthropic",
    );
    expect(result.usage).toEqual({ inputTokens: 115, outputTokens: 2, cacheReadTokens: 100, cacheWriteTokens: 5 });
  });
});
