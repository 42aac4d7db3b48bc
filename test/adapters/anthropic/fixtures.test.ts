/**
 * Recorded Anthropic responses (test/fixtures/providers/anthropic) replayed through a local server
 * that speaks real HTTP/SSE to the official SDK inside the adapter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  anthropicSseFromChunks,
  chunkLines,
  readFixture,
  readJsonFixture,
  sendJson,
  sendSse,
  type FakeUpstream,
  type Handler,
} from "../../helpers/fake-upstream.ts";
import { replyWith, startFakeAnthropic } from "../../helpers/anthropic-rules.ts";
import { TRUNCATED_CALL_ERROR } from "../../../src/adapters/anthropic/result-blocks.ts";
import { adapterAt, collect, eventTypes, lastResult, PROVIDER, request, userText } from "./support.ts";

/** What a tool call carries when Anthropic's tool_use had `caller: {type: "direct"}`: kept to go back as it came. */
const DIRECT = { providerData: { origin: "anthropic", data: { fields: { caller: { type: "direct" } } } } };

let server: FakeUpstream;
let body: { json?: unknown; sse?: string } = {};
const serveBody: Handler = (req, res) => (req.body?.stream ? sendSse(res, body.sse ?? "") : sendJson(res, 200, body.json));
let responder: Handler = serveBody;

beforeAll(async () => {
  // Every request also passes the strict validator on its way in.
  server = await startFakeAnthropic((req, res) => responder(req, res));
});
afterAll(() => server.close());

const ask = request([userText("Hello")]);
const complete = (fixture: string) => {
  body = { json: readJsonFixture(`anthropic/${fixture}`) };
  return adapterAt(server.url).complete(ask);
};
const stream = (sse: string) => {
  body = { sse };
  return collect(adapterAt(server.url).stream(ask));
};
const streamChunks = (fixture: string) => stream(anthropicSseFromChunks(chunkLines(`anthropic/${fixture}`)));

describe("plain text", () => {
  it("maps a non-streamed text message", async () => {
    const result = await complete("anthropic-text.json");
    expect(result).toEqual({
      id: "msg_01VdEjxAP5ahtHKrrRdNBteQ",
      model: "claude-sonnet-4-5-20250929",
      message: {
        role: "assistant",
        content: [{ type: "text", text: "Hello! I'm doing well, thanks for asking. How are you doing today? Is there anything I can help you with?" }],
      },
      stopReason: "stop",
      providerStopReason: "end_turn",
      usage: { inputTokens: 12, outputTokens: 29, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
    expect(server.requests.at(-1)?.path).toBe("/v1/messages");
  });

  it("streams text deltas, ignores ping, and takes the cumulative usage of message_delta", async () => {
    const events = await streamChunks("anthropic-text.chunks.txt");
    expect(eventTypes(events)).toEqual(["start", "text_start", "text_delta", "text_end", "usage", "done"]);
    expect(events[0]).toEqual({ type: "start", id: "msg_01QC4g3HwBThD4BaNtBckFDJ", model: "claude-sonnet-4-5-20250929" });
    const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
    expect(deltas).toEqual(["Hello", "! I", "'m doing well, thank you for asking", ". How are you doing today?", " Is", " there anything I can help you with?"]);
    const text = "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?";
    expect(events).toContainEqual({ type: "text_end", text });
    const usage = { inputTokens: 12, outputTokens: 30, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(events.at(-2)).toEqual({ type: "usage", usage });
    expect(lastResult(events)).toEqual({
      id: "msg_01QC4g3HwBThD4BaNtBckFDJ",
      model: "claude-sonnet-4-5-20250929",
      message: { role: "assistant", content: [{ type: "text", text }] },
      stopReason: "stop",
      providerStopReason: "end_turn",
      usage,
    });
  });
});

describe("tool calls", () => {
  it("maps a tool call without arguments (non-streamed)", async () => {
    const result = await complete("anthropic-tool-no-args.json");
    expect(result.message.content[1]).toEqual({
      type: "tool_call",
      id: "toolu_01LRmxn9vGM1d2DZSDBowdZ1",
      name: "updateIssueList",
      arguments: {},
      rawArguments: "{}",
    });
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 602, outputTokens: 93, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("streams a tool call whose only input delta is empty as {}", async () => {
    const events = await streamChunks("anthropic-tool-no-args.chunks.txt");
    expect(eventTypes(events)).toEqual(["start", "text_start", "text_delta", "text_end", "tool_call_start", "tool_call_end", "usage", "done"]);
    const call = { type: "tool_call", id: "toolu_01QE1WLsSVp5hy5Q3GmGTmjP", name: "updateIssueList", arguments: {}, rawArguments: "{}" };
    expect(events).toContainEqual({ type: "tool_call_start", index: 0, id: call.id, name: call.name });
    expect(events).toContainEqual({ type: "tool_call_end", index: 0, call });
    const result = lastResult(events);
    expect(result.message.content).toEqual([{ type: "text", text: "I'll update the issue list for you." }, call]);
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 565, outputTokens: 48, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("maps a tool-only message (non-streamed)", async () => {
    const result = await complete("anthropic-json-other-tool.1.json");
    expect(result.message.content).toEqual([
      { type: "tool_call", id: "toolu_01PQjhxo3eirCdKNvCJrKc8f", name: "weather", arguments: { location: "San Francisco" }, rawArguments: '{"location":"San Francisco"}' },
    ]);
    expect(result.usage).toEqual({ inputTokens: 843, outputTokens: 28, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("streams input_json_delta fragments split inside a string, with pings in between", async () => {
    const events = await streamChunks("anthropic-json-other-tool.1.chunks.txt");
    const deltas = events.flatMap((event) => (event.type === "tool_call_delta" ? [event] : []));
    expect(deltas).toEqual([
      { type: "tool_call_delta", index: 0, id: "toolu_019Zvehfe1XQWweT1pm7okyt", delta: '{"location": "San Francisco' },
      { type: "tool_call_delta", index: 0, id: "toolu_019Zvehfe1XQWweT1pm7okyt", delta: '"}' },
    ]);
    const result = lastResult(events);
    expect(result.message.content).toEqual([
      {
        type: "tool_call",
        id: "toolu_019Zvehfe1XQWweT1pm7okyt",
        name: "weather",
        arguments: { location: "San Francisco" },
        rawArguments: '{"location": "San Francisco"}',
      },
    ]);
    expect(result.usage.outputTokens).toBe(28);
  });

  it("maps nested array input exactly (non-streamed)", async () => {
    const result = await complete("anthropic-json-tool.1.json");
    const call = result.message.content[0];
    expect(call?.type === "tool_call" && call.arguments).toEqual({
      elements: [
        { location: "San Francisco", temperature: -5, condition: "snowy" },
        { location: "London", temperature: 0, condition: "snowy" },
        { location: "Paris", temperature: 23, condition: "cloudy" },
        { location: "Berlin", temperature: -9, condition: "snowy" },
      ],
    });
  });

  it("streams text then a tool call with nested JSON in two deltas", async () => {
    const result = lastResult(await streamChunks("anthropic-json-tool.2.chunks.txt"));
    expect(result.message.content).toEqual([
      { type: "text", text: "I'll invoke the JSON response tool." },
      {
        type: "tool_call",
        id: "toolu_01KFbKqPYSuAKujiL6mTfzYA",
        name: "json",
        arguments: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
        rawArguments: '{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}',
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 849, outputTokens: 47, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("reads a raw SSE recording served as-is (its final event lacks the closing blank line)", async () => {
    const raw = readFixture("anthropic/tool_use_response.txt");
    for (const sse of [raw, `${raw}\n\n`]) {
      const events = await stream(sse);
      const result = lastResult(events);
      expect(result.id).toBe("msg_019Q1hrJbZG26Fb9BQhrkHEr");
      expect(result.message.content).toEqual([
        { type: "text", text: "I'll check the current weather in Paris for you." },
        { type: "tool_call", id: "toolu_01NRLabsLyVHZPKxbKvkfSMn", name: "get_weather", arguments: { location: "Paris" }, rawArguments: '{"location": "Paris"}', ...DIRECT },
      ]);
      expect(result.stopReason).toBe("tool_calls");
      expect(result.usage).toEqual({ inputTokens: 377, outputTokens: 65, cacheReadTokens: 0, cacheWriteTokens: 0 });
      const fragments = events.flatMap((event) => (event.type === "tool_call_delta" ? [event.delta] : []));
      expect(fragments).toEqual(['{"locati', 'on": "P', "ar", 'is"}']);
    }
  });

  it("hands out a tool call cut off by max_tokens as not runnable, with stop reason length", async () => {
    const events = await stream(readFixture("anthropic/incomplete_partial_json_response.txt"));
    const raw =
      '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes';
    const call = { type: "tool_call", id: "toolu_01EKqbqmZrGRXy18eN7m9kvY", name: "make_file", arguments: {}, rawArguments: raw, argumentsError: TRUNCATED_CALL_ERROR };
    expect(events).toContainEqual({ type: "tool_call_end", index: 0, call });
    const result = lastResult(events);
    expect(result.message.content).toEqual([
      { type: "text", text: "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file called taxes.txt. Let me do that for you now." },
      call,
    ]);
    expect(result.stopReason).toBe("length");
    expect(result.usage).toEqual({ inputTokens: 450, outputTokens: 124, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("marks a trailing tool call of a non-streamed max_tokens response as not runnable", async () => {
    const truncated = { ...readJsonFixture("anthropic/anthropic-json-other-tool.1.json"), stop_reason: "max_tokens" };
    body = { json: truncated };
    const result = await adapterAt(server.url).complete(ask);
    expect(result.stopReason).toBe("length");
    expect(result.message.content[0]).toMatchObject({ type: "tool_call", arguments: {}, argumentsError: TRUNCATED_CALL_ERROR });
  });
});

describe("extended thinking", () => {
  const signature =
    "Er4BCkYICxgCKkCoxqLHLrx4mFL9Ox7/aHKht87WDzXfvZ7qbZKSnHV8imA5b3LXxuVqcXQ9z5sXwDx20JIW/+6DJehOSNK72L83Egx0T9s7VzB6QUK9g5kaDO9lGaWN5CPEDJU0lyIw4+Ed3q4N9w+16h3cfQ+9stJXHCl+1nYDxjIOLcyJT8Ug/LTmtlp4bbxWmmfNicayKiasdReHiOnqz1sKEF0pR4kcnF5mQGdLxk8q3A3NY+wGsH8MtUIqxRgB";

  it("keeps the thinking text and its signature as reasoning from this provider", async () => {
    const result = await complete("anthropic-clear-thinking.1.json");
    expect(result.message.content).toEqual([
      { type: "reasoning", text: "925 divided by 5 = 185", providerData: { origin: PROVIDER, data: { signature } } },
      { type: "text", text: "925 ÷ 5 = 185" },
    ]);
    expect(result.usage).toEqual({ inputTokens: 69, outputTokens: 33, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("streams thinking deltas and ends the reasoning block with the signature_delta's signature", async () => {
    const events = await streamChunks("anthropic-clear-thinking.1.chunks.txt");
    expect(eventTypes(events)).toEqual(["start", "reasoning_start", "reasoning_delta", "reasoning_end", "text_start", "text_delta", "text_end", "usage", "done"]);
    const streamedSignature =
      "EvQBCkYICxgCKkAxhD4NUKFzudtZ6NzbZdEiBACIScTzqjPViM596iWLZIk4EFKYYBj3B6Ptl3b0dcQv/VeJBNbejNWIWRBn+KPNEgz6HWtKx7p+QRgKsEoaDGjsiqfht7gTRFYHiyIwD1VSmNqHxv3wy8KEMP+LYb/TC4UH3H97tuoaADARFFcA0phdfxnzKQxFnc9lwY+dKlzUsaKSUAFeu1bDL5ikZJ1vL0Fkz6JjoFke0L/wOJRIUDUlDUOFJ1tZ3ea7g6LGE/5hwuvWgLwewdcm64d+43l7F57XrOmqNd6flI2K/oPr/4yzNgvi/EhT6Ca17BgB";
    const reasoning = {
      type: "reasoning",
      text: "The previous result was 925. Now I need to divide that by 5.\n\n925 ÷ 5 = 185",
      providerData: { origin: PROVIDER, data: { signature: streamedSignature } },
    };
    expect(events).toContainEqual({ type: "reasoning_end", block: reasoning });
    // The empty thinking_delta of the recording carries nothing and produces no event.
    expect(events.filter((event) => event.type === "reasoning_delta")).toHaveLength(9);
    const result = lastResult(events);
    expect(result.message.content).toEqual([reasoning, { type: "text", text: "925 ÷ 5 = 185" }]);
    expect(result.usage).toEqual({ inputTokens: 69, outputTokens: 53, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("maps redacted thinking to a redacted reasoning block carrying its data", async () => {
    body = {
      json: {
        id: "msg_redacted",
        type: "message",
        role: "assistant",
        model: "claude-haiku-4-5",
        content: [{ type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix/LafPsn4a" }, { type: "text", text: "Done." }],
        stop_reason: "end_turn",
        usage: { input_tokens: 5, output_tokens: 7 },
      },
    };
    const result = await adapterAt(server.url).complete(ask);
    expect(result.message.content[0]).toEqual({
      type: "reasoning",
      text: "",
      redacted: true,
      providerData: { origin: PROVIDER, data: { redactedData: "EmwKAhgBEgy3va3pzix/LafPsn4a" } },
    });
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 7 });
  });
});

describe("streamed and non-streamed results agree", () => {
  const fixtures = ["anthropic-text.json", "anthropic-tool-no-args.json", "anthropic-json-tool.1.json", "anthropic-clear-thinking.1.json"];
  it.each(fixtures)("%s", async (fixture) => {
    const message = readJsonFixture(`anthropic/${fixture}`);
    responder = replyWith(message);
    try {
      const adapter = adapterAt(server.url);
      const plain = await adapter.complete(ask);
      const streamed = lastResult(await collect(adapter.stream(ask)));
      expect(streamed).toEqual(plain);
    } finally {
      responder = serveBody;
    }
  });
});

describe("server tool blocks", () => {
  it("keeps server_tool_use whole as an opaque block (its input from the deltas), not as a call, and stops reading at message_stop", async () => {
    // The recording holds three consecutive messages; the first has text, a client tool_use and a server_tool_use.
    const events = await streamChunks("anthropic-tool-search-deferred-bm25.chunks.txt");
    expect(events.filter((event) => event.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "toolu_01U8pzAHj2vNdPCA2Kf8JjeN", name: "readNoteTree", ...DIRECT },
    ]);
    const result = lastResult(events);
    expect(result.id).toBe("msg_01WUP4eZFC22KbkesuJGqVAw");
    expect(result.message.content.map((block) => block.type)).toEqual(["text", "tool_call", "opaque"]);
    const server = result.message.content[2] as unknown as { providerData: { origin: string; data: { block: { type: string; input: unknown } } } };
    expect(server.providerData.data.block.type).toBe("server_tool_use");
    expect(typeof server.providerData.data.block.input).toBe("object");
    expect(result.message.content[1]).toEqual({
      type: "tool_call",
      id: "toolu_01U8pzAHj2vNdPCA2Kf8JjeN",
      name: "readNoteTree",
      arguments: { noteId: "d10aa585-982b-4bd9-984e-420f9b3717f7" },
      rawArguments: '{"noteId": "d10aa585-982b-4bd9-984e-420f9b3717f7"}',
      ...DIRECT,
    });
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 879, outputTokens: 177, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });
});
