/**
 * The Responses door's stream writer on its own: the final response object is made once, for the
 * store (which takes it before the stream's end) and the last event alike, with every item whole.
 */
import { describe, expect, it } from "vitest";
import { ResponsesWriter } from "../../src/gateway/doors/responses/writer.ts";
import type { LoopOutcome } from "../../src/loop/index.ts";

const context = { kinds: new Map(), approvals: new Set<string>(), encrypted: false, isResponses: () => false, origin: (name: string) => ({ server: name, tool: name }) };
const head = { id: "resp_1", createdAt: 1, model: "p/m", body: { model: "p/m", tools: [{ type: "function" as const, name: "f", parameters: { type: "object" } }] } };
const outcome = { stopReason: "stop", turns: 1, tools: [], newMessages: [], usage: { inputTokens: 3, outputTokens: 2 }, last: { model: "m", provider: "p" } } as unknown as LoopOutcome;

/** The events of some frames: each one's type and its data. */
function events(frames: string): { type: string; data: { [key: string]: unknown } }[] {
  return frames
    .split("\n\n")
    .filter((frame) => frame !== "")
    .map((frame) => {
      const [event, data] = frame.split("\n");
      return { type: event!.slice("event: ".length), data: JSON.parse(data!.slice("data: ".length)) as { [key: string]: unknown } };
    });
}

describe("the Responses stream writer", () => {
  it("opens with one snapshot in both opening events, each with its own sequence number", () => {
    const opened = events(new ResponsesWriter(head, context, []).open());
    expect(opened.map((e) => [e.type, e.data["type"], e.data["sequence_number"]])).toEqual([
      ["response.created", "response.created", 0],
      ["response.in_progress", "response.in_progress", 1],
    ]);
    expect(opened[0]!.data["response"]).toMatchObject({ id: "resp_1", status: "in_progress", output: [], tools: head.body.tools });
    expect(opened[1]!.data["response"]).toEqual(opened[0]!.data["response"]);
  });

  it("closes an item still open when the store takes the final object: the store and the last event have it whole", () => {
    const writer = new ResponsesWriter(head, context, []);
    let frames = writer.open() + writer.event({ type: "text_delta", delta: "Hel" } as never) + writer.event({ type: "text_delta", delta: "lo" } as never);
    // The stream ended without the text's end: what the store keeps, taken before `finish`.
    const stored = writer.resultJson(outcome);
    expect(JSON.parse(stored)).toMatchObject({ status: "completed", output: [{ type: "message", status: "completed", content: [{ type: "output_text", text: "Hello" }] }] });
    frames += writer.finish(outcome);
    const all = events(frames);
    expect(all.slice(-4).map((e) => e.type)).toEqual(["response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"]);
    expect(all.map((e) => e.data["sequence_number"])).toEqual(all.map((_, i) => i));
    expect(JSON.stringify(all.at(-1)!.data["response"])).toBe(stored);
  });

  it("makes the final object the same way when nothing takes it before the end", () => {
    const writer = new ResponsesWriter(head, context, []);
    const all = events(writer.open() + writer.event({ type: "text_delta", delta: "Hi" } as never) + writer.finish(outcome));
    expect(all.slice(-2).map((e) => e.type)).toEqual(["response.output_item.done", "response.completed"]);
    expect(all.at(-1)!.data["response"]).toMatchObject({ output: [{ type: "message", content: [{ type: "output_text", text: "Hi" }] }] });
  });
});
