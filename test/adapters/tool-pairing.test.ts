/**
 * pairToolResults: the repair every Chat Completions provider gets for histories a client
 * truncated or lost a tool message from. Each assistant message's calls must be answered by the
 * tool messages right after it; results are moved up, missing ones get a placeholder error
 * result, stray ones are dropped, and nothing else in the history moves.
 */
import { describe, expect, it } from "vitest";
import type { AssistantMessage, Message, SystemMessage, ToolCallBlock, ToolMessage, ToolResultBlock, UserMessage } from "../../src/core/index.ts";
import { pairToolResults, UNANSWERED_RESULT_TEXT } from "../../src/adapters/tool-pairing.ts";
import { toWireMessages } from "../../src/adapters/openai-chat/to-messages.ts";
import { orphanToolMessage, unansweredCalls } from "../helpers/strict-fakes/pairing.ts";

const system = (text = "You are a helpful assistant."): SystemMessage => ({ role: "system", content: [{ type: "text", text }] });
const user = (text: string): UserMessage => ({ role: "user", content: [{ type: "text", text }] });
const call = (id: string, name = "get_weather"): ToolCallBlock => ({ type: "tool_call", id, name, arguments: { city: "Paris" }, rawArguments: '{"city":"Paris"}' });
const assistant = (...calls: ToolCallBlock[]): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text: "Let me check." }, ...calls] });
const said = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }] });
const result = (callId: string, text = `result of ${callId}`): ToolResultBlock => ({ type: "tool_result", callId, content: [{ type: "text", text }], isError: false });
const tool = (...results: ToolResultBlock[]): ToolMessage => ({ role: "tool", content: results });
const placeholder = (id: string, name = "get_weather"): ToolResultBlock => ({
  type: "tool_result",
  callId: id,
  name,
  content: [{ type: "text", text: UNANSWERED_RESULT_TEXT }],
  isError: true,
});

const nonTool = (messages: readonly Message[]) => messages.filter((message) => message.role !== "tool");

/** Each assistant's calls answered, in call order, by exactly one tool message right after it; no other tool message. */
function expectPaired(messages: readonly Message[]): void {
  messages.forEach((message, index) => {
    const next = messages[index + 1];
    if (message.role === "tool") {
      const before = messages[index - 1];
      expect(before?.role, `tool message at ${index} follows an assistant`).toBe("assistant");
      return;
    }
    if (message.role !== "assistant") return;
    const ids = message.content.filter((block) => block.type === "tool_call").map((block) => (block as ToolCallBlock).id);
    if (ids.length === 0) {
      expect(next?.role).not.toBe("tool");
      return;
    }
    expect(next?.role).toBe("tool");
    expect((next as ToolMessage).content.map((r) => r.callId)).toEqual(ids);
  });
}

describe("pairToolResults: histories that already pair up", () => {
  it("returns the very same array", () => {
    const history: Message[] = [system(), user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("a"), result("b")), said("Sunny, 14:05.")];
    expect(pairToolResults(history)).toBe(history);
  });

  it("several tool messages for one assistant message are paired too", () => {
    const history: Message[] = [user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("a")), tool(result("b"))];
    expect(pairToolResults(history)).toBe(history);
  });

  it("results in another order than the calls are paired too", () => {
    const history: Message[] = [user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("b")), tool(result("a"))];
    expect(pairToolResults(history)).toBe(history);
    const oneMessage: Message[] = [user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("b"), result("a"))];
    expect(pairToolResults(oneMessage)).toBe(oneMessage);
  });

  it("several rounds, and assistant messages without calls, are left alone", () => {
    const history: Message[] = [
      system(),
      user("Hi"),
      said("Hello! How can I help?"),
      user("Weather?"),
      assistant(call("a")),
      tool(result("a")),
      assistant(call("b", "get_time")),
      tool(result("b")),
      said("Sunny, 14:05."),
    ];
    expect(pairToolResults(history)).toBe(history);
  });

  it("an empty history and a history without tools are returned as is", () => {
    const empty: Message[] = [];
    expect(pairToolResults(empty)).toBe(empty);
    const chat: Message[] = [system(), user("Hi"), said("Hello!"), user("Bye")];
    expect(pairToolResults(chat)).toBe(chat);
  });
});

describe("pairToolResults: repairs", () => {
  it("a call without a result gets a placeholder error result (callId and name kept), after the real one", () => {
    const history: Message[] = [system(), user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("a"))];
    const paired = pairToolResults(history);
    expect(paired).not.toBe(history);
    expect(paired).toEqual([system(), user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("a"), placeholder("b", "get_time"))]);
    const last = paired.at(-1) as ToolMessage;
    expect(last.content[1]).toMatchObject({ callId: "b", name: "get_time", isError: true });
    expect(history).toHaveLength(4); // the input is not modified
    expect((history[3] as ToolMessage).content).toHaveLength(1);
  });

  it("a call answered by nothing at all (the history ends with it) gets a placeholder", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a"))];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(placeholder("a"))]);
  });

  it("a call followed straight by a user message gets a placeholder before that user message", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), user("Never mind.")];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(placeholder("a")), user("Never mind.")]);
  });

  it("an orphan tool message right after a user message (its call was truncated away) is dropped", () => {
    const history: Message[] = [system(), user("Weather in Lyon?"), tool(result("gone")), said("12°C, rain."), user("And Paris?"), assistant(call("a")), tool(result("a"))];
    expect(pairToolResults(history)).toEqual([system(), user("Weather in Lyon?"), said("12°C, rain."), user("And Paris?"), assistant(call("a")), tool(result("a"))]);
  });

  it("a tool message first in the history is dropped", () => {
    const history: Message[] = [tool(result("gone")), user("Hi")];
    expect(pairToolResults(history)).toEqual([user("Hi")]);
  });

  it("a stray result next to real ones is dropped, the real ones kept", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), tool(result("a"), result("zzz"))];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(result("a"))]);
  });

  it("a result separated from its call by a user message moves up right after the assistant; the user message follows", () => {
    const history: Message[] = [system(), user("Weather?"), assistant(call("a")), user("And the time too, please."), tool(result("a")), assistant(call("b", "get_time")), tool(result("b"))];
    expect(pairToolResults(history)).toEqual([
      system(),
      user("Weather?"),
      assistant(call("a")),
      tool(result("a")),
      user("And the time too, please."),
      assistant(call("b", "get_time")),
      tool(result("b")),
    ]);
  });

  it("results split around a user message are gathered into one tool message, in call order", () => {
    const history: Message[] = [user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("b")), user("Hurry."), tool(result("a"))];
    expect(pairToolResults(history)).toEqual([user("Weather and time?"), assistant(call("a"), call("b", "get_time")), tool(result("a"), result("b")), user("Hurry.")]);
  });

  it("a system message between a call and its result: the result moves before it", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), system("Be brief."), tool(result("a"))];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(result("a")), system("Be brief.")]);
  });

  it("a result for a call of an earlier assistant (two assistants back) is dropped; that call gets a placeholder", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), user("Time?"), assistant(call("b", "get_time")), tool(result("a")), tool(result("b"))];
    const paired = pairToolResults(history);
    expect(paired).toEqual([user("Weather?"), assistant(call("a")), tool(placeholder("a")), user("Time?"), assistant(call("b", "get_time")), tool(result("b"))]);
    const texts = paired.flatMap((m) => (m.role === "tool" ? m.content.flatMap((r) => r.content.map((c) => (c.type === "text" ? c.text : ""))) : []));
    expect(texts).not.toContain("result of a");
  });

  it("assistant messages right after the call belong to its turn: results after them still count", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), said("Still waiting."), tool(result("a"))];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(result("a")), said("Still waiting.")]);
  });

  it("parallel calls split over back-to-back assistant messages keep their real results", () => {
    const history: Message[] = [user("Weather and time?"), assistant(call("a")), assistant(call("b")), tool(result("a", "sunny")), tool(result("b", "14:05"))];
    expect(pairToolResults(history)).toEqual([
      user("Weather and time?"),
      assistant(call("a")),
      tool(result("a", "sunny")),
      assistant(call("b")),
      tool(result("b", "14:05")),
    ]);
  });

  it("results never cross into a later turn (an assistant message after a user message)", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), user("Hm?"), said("Still waiting."), tool(result("a"))];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(placeholder("a")), user("Hm?"), said("Still waiting.")]);
  });

  it("duplicate results for one id: the first wins", () => {
    const history: Message[] = [user("Weather?"), assistant(call("a")), tool(result("a", "first")), tool(result("a", "second"))];
    expect(pairToolResults(history)).toEqual([user("Weather?"), assistant(call("a")), tool(result("a", "first"))]);
    const inOne: Message[] = [user("Weather?"), assistant(call("a")), tool(result("a", "first"), result("a", "second"))];
    expect(pairToolResults(inOne)).toEqual([user("Weather?"), assistant(call("a")), tool(result("a", "first"))]);
    const apart: Message[] = [user("Weather?"), assistant(call("a")), user("Hello?"), tool(result("a", "first")), tool(result("a", "second"))];
    expect(pairToolResults(apart)).toEqual([user("Weather?"), assistant(call("a")), tool(result("a", "first")), user("Hello?")]);
  });

  it("assistant messages without calls are kept as the same objects, with no tool message after them", () => {
    const greeting = said("Hello!");
    const answer = said("Sunny.");
    const history: Message[] = [user("Hi"), greeting, tool(result("stray")), user("Weather?"), assistant(call("a")), user("?"), tool(result("a")), answer];
    const paired = pairToolResults(history);
    expect(paired).toEqual([user("Hi"), greeting, user("Weather?"), assistant(call("a")), tool(result("a")), user("?"), answer]);
    expect(paired[1]).toBe(greeting);
    expect(paired.at(-1)).toBe(answer);
  });

  it("the result blocks are passed on unchanged (structured content, error flag, name)", () => {
    const rich: ToolResultBlock = { type: "tool_result", callId: "a", name: "get_weather", content: [], structured: { temp: 18 }, isError: true };
    const history: Message[] = [user("Weather?"), assistant(call("a")), user("!"), tool(rich)];
    const paired = pairToolResults(history);
    expect((paired[2] as ToolMessage).content[0]).toBe(rich);
  });
});

describe("pairToolResults: invariants", () => {
  /** Deterministic PRNG (mulberry32), so a failure reproduces. */
  function random(seed: number): () => number {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function history(next: () => number): Message[] {
    const messages: Message[] = [system()];
    const ids: string[] = [];
    const length = 1 + Math.floor(next() * 12);
    for (let i = 0; i < length; i++) {
      const pick = next();
      if (pick < 0.25) messages.push(user(`u${i}`));
      else if (pick < 0.35) messages.push(said(`s${i}`));
      else if (pick < 0.6) {
        const calls = Array.from({ length: 1 + Math.floor(next() * 3) }, (_, k) => call(`c${i}_${k}`));
        ids.push(...calls.map((c) => c.id));
        messages.push(assistant(...calls));
      } else {
        const results = Array.from({ length: 1 + Math.floor(next() * 2) }, () =>
          next() < 0.85 && ids.length > 0 ? result(ids[Math.floor(next() * ids.length)]!) : result(`stray${i}`),
        );
        messages.push(tool(...results));
      }
    }
    return messages;
  }

  it("non-tool messages keep their number, order and identity; the output pairs up and is a fixed point", () => {
    const next = random(20240611);
    for (let n = 0; n < 500; n++) {
      const input = history(next);
      const snapshot = structuredClone(input);
      const paired = pairToolResults(input);
      expect(nonTool(paired)).toHaveLength(nonTool(input).length);
      nonTool(paired).forEach((message, i) => expect(message).toBe(nonTool(input)[i]));
      expectPaired(paired);
      expect(pairToolResults(paired)).toBe(paired);
      expect(input).toEqual(snapshot); // never mutated
      // Every result in the output is one from the input or a placeholder.
      const given = new Set(input.flatMap((m) => (m.role === "tool" ? m.content : [])));
      for (const message of paired) {
        if (message.role !== "tool") continue;
        for (const block of message.content) if (!given.has(block)) expect(block.content).toEqual([{ type: "text", text: UNANSWERED_RESULT_TEXT }]);
      }
    }
  });
});

describe("toWireMessages applies the pairing (every OpenAI-protocol provider)", () => {
  type WireMessage = ReturnType<typeof toWireMessages>[number];
  const outline = (messages: WireMessage[]) =>
    messages.map((m) => {
      if (m.role === "tool") return `tool ${m.tool_call_id}: ${String(m.content)}`;
      if (m.role === "assistant" && m.tool_calls) return `assistant [${m.tool_calls.map((c) => c.id).join(",")}]`;
      return m.role;
    });

  it("an unanswered call gets a tool message with its tool_call_id right after the assistant's tool_calls", () => {
    const wire = toWireMessages([system(), user("Weather and time?"), assistant(call("call_a"), call("call_b", "get_time")), tool(result("call_a", "18°C"))]);
    expect(outline(wire)).toEqual(["system", "user", "assistant [call_a,call_b]", "tool call_a: 18°C", `tool call_b: ${UNANSWERED_RESULT_TEXT}`]);
    expect(unansweredCalls({ messages: wire })).toBeUndefined();
    expect(orphanToolMessage({ messages: wire })).toBeUndefined();
  });

  it("a late result moves right after the assistant; an orphan tool message is dropped", () => {
    const wire = toWireMessages([
      system(),
      user("Weather in Lyon?"),
      tool(result("call_gone", "12°C")),
      user("Weather in Paris?"),
      assistant(call("call_a")),
      user("Please hurry."),
      tool(result("call_a", "18°C")),
      assistant(call("call_b", "get_time")),
      tool(result("call_b", "14:05")),
    ]);
    expect(outline(wire)).toEqual([
      "system",
      "user",
      "user",
      "assistant [call_a]",
      "tool call_a: 18°C",
      "user",
      "assistant [call_b]",
      "tool call_b: 14:05",
    ]);
    expect(unansweredCalls({ messages: wire })).toBeUndefined();
    expect(orphanToolMessage({ messages: wire })).toBeUndefined();
  });

  it("a paired history goes to the wire unchanged, one tool message per result", () => {
    const wire = toWireMessages([user("Weather and time?"), assistant(call("call_a"), call("call_b", "get_time")), tool(result("call_b", "14:05")), tool(result("call_a", "18°C"))]);
    expect(outline(wire)).toEqual(["user", "assistant [call_a,call_b]", "tool call_b: 14:05", "tool call_a: 18°C"]);
  });
});
