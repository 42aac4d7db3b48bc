/**
 * The doors' stream writers on scripted loop events: the Messages writer keeps Anthropic's
 * grammar (blocks opened and closed in order, consecutive indexes, a signature before a thinking
 * block closes, tool input as input_json_delta), and the Chat Completions writer joins the texts
 * of successive turns with one separator.
 */
import { describe, expect, it } from "vitest";
import { GatewayError, type ReasoningBlock, type ToolCallBlock } from "../../src/core/index.ts";
import type { LoopEvent, LoopOutcome } from "../../src/loop/index.ts";
import { ChunkBuilder } from "../../src/gateway/doors/chat-completions/chunks.ts";
import { ChatCompletionsWriter } from "../../src/gateway/doors/chat-completions/writer.ts";
import { MessagesWriter } from "../../src/gateway/doors/messages/writer.ts";
import { gatewaySignature, reasoningFromThinking } from "../../src/gateway/doors/messages/signatures.ts";

const call: ToolCallBlock = { type: "tool_call", id: "toolu_1", name: "lookup", arguments: { q: "x" }, rawArguments: '{"q":"x"}' };
const reasoning = (text: string, origin: string, signature?: string): ReasoningBlock => ({
  type: "reasoning",
  text,
  ...(signature ? { providerData: { origin, data: { signature } } } : {}),
});

function outcome(partial: Partial<LoopOutcome> = {}): LoopOutcome {
  return {
    stopReason: "stop",
    message: { role: "assistant", content: [] },
    newMessages: [],
    clientToolCalls: [],
    usage: { inputTokens: 30, outputTokens: 5, cacheReadTokens: 10 },
    turns: 1,
    tools: [],
    last: { id: "x", model: "m", message: { role: "assistant", content: [] }, stopReason: "stop", usage: { inputTokens: 0, outputTokens: 0 } },
    ...partial,
  };
}

/** The SSE frames as (event, data) pairs. */
function frames(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const [eventLine, dataLine] = frame.split("\n");
      return { event: eventLine!.slice("event: ".length), data: JSON.parse(dataLine!.slice("data: ".length)) as Record<string, unknown> };
    });
}

function write(events: LoopEvent[], end: LoopOutcome, isAnthropic: (origin: string) => boolean = (origin) => origin === "claude"): string {
  const writer = new MessagesWriter("msg_1", "model-a", isAnthropic);
  return writer.open() + events.map((event) => writer.event(event)).join("") + writer.finish(end);
}

describe("MessagesWriter", () => {
  it("writes thinking, text and a client tool call as consecutive blocks, then the stop reason and usage", () => {
    const text = write(
      [
        { type: "turn_start", turn: 1 },
        { type: "reasoning_start" },
        { type: "reasoning_delta", delta: "Think" },
        { type: "reasoning_end", block: reasoning("Think", "claude", "sig-abc") },
        { type: "text_start" },
        { type: "text_delta", delta: "Hel" },
        { type: "text_delta", delta: "lo" },
        { type: "text_end" },
        { type: "client_tool_call_start", index: 0, id: "toolu_1", name: "lookup" },
        { type: "client_tool_call_delta", index: 0, delta: '{"q":' },
        { type: "client_tool_call_delta", index: 0, delta: '"x"}' },
        { type: "client_tool_call_end", index: 0, call },
      ],
      outcome({ stopReason: "client_tools", clientToolCalls: [call] }),
    );
    const all = frames(text);
    expect(all.map((f) => f.event)).toEqual([
      "message_start", "ping",
      "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
      "content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
      // The client's call goes out whole once complete: one input_json_delta with its input.
      "content_block_start", "content_block_delta", "content_block_stop",
      "message_delta", "message_stop",
    ]);
    const starts = all.filter((f) => f.event === "content_block_start").map((f) => [f.data["index"], (f.data["content_block"] as { type: string }).type]);
    expect(starts).toEqual([[0, "thinking"], [1, "text"], [2, "tool_use"]]);
    expect(all[4]!.data["delta"]).toEqual({ type: "signature_delta", signature: "sig-abc" });
    const json = all.filter((f) => (f.data["delta"] as { type?: string } | undefined)?.type === "input_json_delta").map((f) => (f.data["delta"] as { partial_json: string }).partial_json).join("");
    expect(JSON.parse(json)).toEqual({ q: "x" });
    expect(all.at(-2)!.data).toMatchObject({ delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 5 } });
  });

  it("keeps parallel client calls apart when the provider finishes them together, with empty or repaired input", () => {
    const empty: ToolCallBlock = { type: "tool_call", id: "call_a", name: "a", arguments: {}, rawArguments: "" };
    const repaired: ToolCallBlock = { type: "tool_call", id: "call_b", name: "b", arguments: { q: "x" }, rawArguments: "{'q': 'x'" };
    const text = write(
      [
        { type: "client_tool_call_start", index: 0, id: "call_a", name: "a" },
        { type: "client_tool_call_start", index: 1, id: "call_b", name: "b" },
        { type: "client_tool_call_delta", index: 1, delta: "{'q': 'x'" },
        // OpenAI-protocol providers end every call at finish_reason, in order.
        { type: "client_tool_call_end", index: 0, call: empty },
        { type: "client_tool_call_end", index: 1, call: repaired },
      ],
      outcome({ stopReason: "client_tools", clientToolCalls: [empty, repaired] }),
    );
    const all = frames(text);
    const inputs = new Map<number, string>();
    for (const f of all) {
      const delta = f.data["delta"] as { type?: string; partial_json?: string } | undefined;
      if (f.event === "content_block_delta" && delta?.type === "input_json_delta") inputs.set(f.data["index"] as number, (inputs.get(f.data["index"] as number) ?? "") + delta.partial_json);
    }
    expect([...inputs.entries()].map(([index, json]) => [index, JSON.parse(json)])).toEqual([
      [0, {}],
      [1, { q: "x" }],
    ]);
    // Each block stopped right after its own input.
    expect(all.filter((f) => f.event.startsWith("content_block")).map((f) => `${f.event}:${String(f.data["index"])}`)).toEqual([
      "content_block_start:0", "content_block_delta:0", "content_block_stop:0",
      "content_block_start:1", "content_block_delta:1", "content_block_stop:1",
    ]);
  });

  it("streams an Anthropic server tool's blocks whole, only to Anthropic's own", () => {
    const server = { type: "opaque" as const, providerData: { origin: "claude", data: { block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } } } } };
    const events: LoopEvent[] = [{ type: "opaque_block", block: server }, { type: "text_delta", delta: "Found." }];
    const blocks = frames(write(events, outcome())).filter((f) => f.event === "content_block_start").map((f) => (f.data["content_block"] as { type: string }).type);
    expect(blocks).toEqual(["server_tool_use", "text"]);
    const elsewhere = frames(write(events, outcome(), () => false)).filter((f) => f.event === "content_block_start").map((f) => (f.data["content_block"] as { type: string }).type);
    expect(elsewhere).toEqual(["text"]);
  });

  it("sends thinking that came whole (no deltas) with its text", () => {
    const all = frames(write([{ type: "reasoning_end", block: reasoning("All at once.", "claude", "sig-1") }], outcome()));
    const deltas = all.filter((f) => f.event === "content_block_delta").map((f) => f.data["delta"]);
    expect(deltas).toEqual([{ type: "thinking_delta", thinking: "All at once." }, { type: "signature_delta", signature: "sig-1" }]);
  });

  it("signs another provider's reasoning with the gateway's signature, which decodes back to its provider data", () => {
    const block: ReasoningBlock = { type: "reasoning", text: "Hmm", providerData: { origin: "minimax", data: { details: [{ id: 1 }] } } };
    const all = frames(write([{ type: "reasoning_delta", delta: "Hmm" }, { type: "reasoning_end", block }], outcome()));
    const signature = (all.find((f) => (f.data["delta"] as { type?: string } | undefined)?.type === "signature_delta")!.data["delta"] as { signature: string }).signature;
    expect(signature).toBe(gatewaySignature(block.providerData));
    expect(reasoningFromThinking("Hmm", signature)).toEqual(block);
  });

  it("closes an open block before a new turn, and ends a failed stream with an error event", () => {
    const writer = new MessagesWriter("msg_1", "m", () => false);
    const text =
      writer.open() +
      writer.event({ type: "text_delta", delta: "first" }) +
      writer.event({ type: "turn_start", turn: 2 }) +
      writer.event({ type: "text_delta", delta: "second" }) +
      writer.fail(new GatewayError("Overloaded", { status: 529, type: "overloaded_error" }));
    const all = frames(text);
    expect(all.filter((f) => f.event === "content_block_start").map((f) => f.data["index"])).toEqual([0, 1]);
    expect(all.filter((f) => f.event === "content_block_stop").map((f) => f.data["index"])).toEqual([0, 1]);
    expect(all.at(-1)).toEqual({ event: "error", data: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } });
  });
});

describe("ChatCompletionsWriter", () => {
  it("joins the texts of successive turns with one separator", () => {
    const writer = new ChatCompletionsWriter({ id: "c1", created: 1 }, "m", false);
    const text = [
      { type: "turn_start", turn: 1 },
      { type: "text_delta", delta: "first" },
      { type: "turn_start", turn: 2 },
      { type: "text_delta", delta: "sec" },
      { type: "text_delta", delta: "ond" },
    ]
      .map((event) => writer.event(event as LoopEvent))
      .join("");
    const contents = text
      .split("\n\n")
      .filter((line) => line.startsWith("data: {"))
      .map((line) => (JSON.parse(line.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]!.delta.content);
    expect(contents.join("")).toBe("first\n\nsecond");
  });
});

describe("the Chat Completions text chunk's template", () => {
  it("writes exactly what JSON.stringify writes for the chunk, whatever the text and model", () => {
    const builder = new ChunkBuilder('chatcmpl-"quoted"', "alias", 1700000000);
    const texts = ["plain", "", 'quotes " and \\ backslash', "line\nbreak\ttab", "héllo — 世界 🎉", "\u0000delta", "\u2028\u2029", "\ud800 lone surrogate"];
    for (const model of ["alias", 'model "with" \u0000delta', "gpt-4o"]) {
      builder.model = model;
      for (const delta of texts) expect(builder.textJson(delta), `${model} / ${delta}`).toBe(JSON.stringify(builder.fromEvent({ type: "text_delta", delta })));
    }
  });
});
