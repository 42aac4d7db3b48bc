/** MiniMax `<think>` blocks: split for the neutral result, streamed or not, and sent back whole. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { splitThinkTags, ThinkTagSplitter } from "../../../src/adapters/quirks/index.ts";
import type { Message } from "../../../src/core/index.ts";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { MINIMAX_TOOL_TURN_CONTENT } from "../../helpers/strict-fakes/minimax.ts";
import { renderCompletion, renderSse } from "../../helpers/strict-fakes/render.ts";
import { adapterFor, callModel, MODES, opening, PROVIDER, request, textOf, toolResults, callsOf } from "./harness.ts";

describe("think tags: splitter", () => {
  it("a leading think block is reasoning; the blank line after it belongs to neither", () => {
    expect(splitThinkTags("<think>\nplan\n</think>\n\nAnswer.")).toEqual({ reasoning: "\nplan\n", text: "Answer.", found: true });
  });

  it("content without a leading think block is left exactly as it is", () => {
    expect(splitThinkTags("  Answer with <think> inside")).toEqual({ reasoning: "", text: "  Answer with <think> inside", found: false });
  });

  it("every split point into two deltas gives the same result", () => {
    const content = MINIMAX_TOOL_TURN_CONTENT;
    const whole = splitThinkTags(content);
    for (let at = 0; at <= content.length; at++) {
      const splitter = new ThinkTagSplitter();
      const a = splitter.push(content.slice(0, at));
      const b = splitter.push(content.slice(at));
      const c = splitter.end();
      expect({ reasoning: a.reasoning + b.reasoning + c.reasoning, text: a.text + b.text + c.text }, `split at ${at}`).toEqual({
        reasoning: whole.reasoning,
        text: whole.text,
      });
    }
  });

  it("reasoning streams out as it comes, holding only a possible closing tag", () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push("<thi")).toEqual({ reasoning: "", text: "" });
    expect(splitter.push("nk>step one ")).toEqual({ reasoning: "step one ", text: "" });
    expect(splitter.push("step two</th")).toEqual({ reasoning: "step two", text: "" });
    expect(splitter.push("ink>Done")).toEqual({ reasoning: "", text: "Done" });
  });

  it("an unclosed think block (cut by the token limit) is all reasoning", () => {
    expect(splitThinkTags("<think>still thinking")).toEqual({ reasoning: "still thinking", text: "", found: true });
  });
});

describe.each(MODES)("think tags through the adapter (minimax, %s)", (mode) => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = {
        content: MINIMAX_TOOL_TURN_CONTENT,
        tool_calls: [{ id: "call_function_1", name: "get_weather", arguments: '{"city":"Paris"}' }],
        finish: "tool_calls",
      };
      if (req.body.stream) sendSse(res, renderSse(message, "MiniMax-M2", { piece: 3 }));
      else sendJson(res, 200, renderCompletion(message, "MiniMax-M2"));
    });
  });
  afterAll(() => upstream.close());

  const fake = () => `${upstream.url}/v1`;

  it("reasoning block with the raw content kept; text without tags; replayed byte-for-byte to the same provider only", async () => {
    const result = await callModel(adapterFor(fake(), "minimax"), request(opening()), mode);
    expect(result.message.content[0]).toEqual({
      type: "reasoning",
      text: "\nThe user asks two things. I will call both tools.\n",
      providerData: { origin: PROVIDER, data: { content: MINIMAX_TOOL_TURN_CONTENT } },
    });
    expect(textOf(result.message)).toBe("Let me look both up.");

    const history: Message[] = [...opening(), result.message, toolResults(callsOf(result.message))];
    await callModel(adapterFor(fake(), "minimax"), request(history), mode);
    expect(upstream.requests.at(-1)!.body.messages[2].content).toBe(MINIMAX_TOOL_TURN_CONTENT);

    // Another provider instance never gets this provider's thinking: it sees the visible text.
    await callModel(adapterFor(fake(), "minimax", "other-minimax"), request(history), mode);
    expect(upstream.requests.at(-1)!.body.messages[2].content).toBe("Let me look both up.");
  });

  it("a visible text changed since (a client edited it) is sent as edited", async () => {
    const result = await callModel(adapterFor(fake(), "minimax"), request(opening()), mode);
    const edited = { ...result.message, content: result.message.content.map((b) => (b.type === "text" ? { ...b, text: "Edited." } : b)) };
    await callModel(adapterFor(fake(), "minimax"), request([...opening(), edited, toolResults(callsOf(edited))]), mode);
    expect(upstream.requests.at(-1)!.body.messages[2].content).toBe("Edited.");
  });
});
