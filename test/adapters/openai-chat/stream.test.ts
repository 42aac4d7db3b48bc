/** stream(): recorded provider streams served over real HTTP, translated to neutral events. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatResult, StreamEvent } from "../../../src/core/index.ts";
import { chunkLines, openAiSseFromChunks, sendSse, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import {
  adapterFor,
  chunksSse,
  collect,
  doneResult,
  eventOutline,
  jsonBody,
  PROVIDER,
  rawSse,
  simpleRequest,
  startSse,
  chunk,
} from "./harness.ts";

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

async function streamWith(handler: Parameters<FakeUpstream["handle"]>[0]): Promise<StreamEvent[]> {
  upstream.handle(handler);
  return collect(adapterFor(upstream).stream(simpleRequest()));
}

const streamBin = (name: string) => streamWith(rawSse(`openai-chat/${name}.bin`));
const streamChunks = (fixture: string) => streamWith(chunksSse(fixture));

async function completeJson(fixture: string): Promise<ChatResult> {
  upstream.handle(jsonBody(fixture));
  return adapterFor(upstream).complete(simpleRequest());
}

function ofType<T extends StreamEvent["type"]>(events: StreamEvent[], type: T): Extract<StreamEvent, { type: T }>[] {
  return events.filter((event): event is Extract<StreamEvent, { type: T }> => event.type === type);
}

/** What must match between a streamed and a non-streamed answer of different recordings of the same prompt. */
function shape(result: ChatResult) {
  return {
    model: result.model,
    blocks: result.message.content.map((block) => {
      if (block.type === "tool_call") return { type: block.type, name: block.name, arguments: block.arguments };
      if (block.type === "reasoning") return { type: block.type, providerData: block.providerData };
      return { type: block.type };
    }),
    stopReason: result.stopReason,
    usageKeys: Object.keys(result.usage).sort(),
  };
}

describe("openai-chat stream(): the answer's end", () => {
  const answer = [chunk({ role: "assistant", content: "" }), chunk({ content: "Hello" }), chunk({}, "stop")];

  it("at [DONE], or at the body's end for a server that sends none: the same events", async () => {
    const withDone = await streamWith((_req, res) => {
      startSse(res, [...answer, "[DONE]"]);
      res.end();
    });
    const withoutDone = await streamWith((_req, res) => {
      startSse(res, answer);
      res.end();
    });
    expect(withDone.at(-1)?.type).toBe("done");
    expect(doneResult(withDone).message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(withoutDone).toEqual(withDone);
  });
});

describe("openai-chat stream(): Mistral Magistral thinking parts", () => {
  it("streams the thinking parts of content deltas as reasoning, then the text", async () => {
    const think = (text: string) => chunk({ content: [{ type: "thinking", thinking: [{ type: "text", text }] }] });
    const events = await streamWith((_req, res) => {
      startSse(res, [chunk({ role: "assistant", content: "" }), think("2+2 "), think("is 4."), chunk({ content: [{ type: "text", text: "2 + 2 = 4" }] }), chunk({}, "stop")]);
      res.end("data: [DONE]\n\n");
    });
    expect(ofType(events, "reasoning_delta").map((e) => e.delta)).toEqual(["2+2 ", "is 4."]);
    expect(doneResult(events).message.content).toEqual([
      { type: "reasoning", text: "2+2 is 4.", providerData: { origin: PROVIDER, data: { field: "thinking" } } },
      { type: "text", text: "2 + 2 = 4" },
    ]);
  });
});

describe("openai-chat stream(): OpenAI recordings", () => {
  it("parallel tool calls assembled by index, argument deltas split mid-token", async () => {
    const events = await streamBin("f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b");
    expect(events[0]).toEqual({ type: "start", id: "chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63", model: "gpt-4o-2024-08-06" });
    expect(eventOutline(events)).toEqual([
      "start",
      "tool_call_start",
      "tool_call_delta*",
      "tool_call_start",
      "tool_call_delta*",
      "tool_call_end",
      "tool_call_end",
      "usage",
      "done",
    ]);
    expect(ofType(events, "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_JMW1whyEaYG438VE1OIflxA2", name: "GetWeatherArgs" },
      { type: "tool_call_start", index: 1, id: "call_DNYTawLBoN8fj3KN6qU9N1Ou", name: "get_stock_price" },
    ]);
    const deltas = ofType(events, "tool_call_delta");
    expect(deltas.filter((d) => d.index === 0).map((d) => d.delta).join("")).toBe('{"city": "Edinburgh", "country": "GB", "units": "c"}');
    expect(deltas.filter((d) => d.index === 1).every((d) => d.id === "call_DNYTawLBoN8fj3KN6qU9N1Ou")).toBe(true);
    const calls = ofType(events, "tool_call_end").map((event) => event.call);
    expect(calls).toEqual([
      {
        type: "tool_call",
        id: "call_JMW1whyEaYG438VE1OIflxA2",
        name: "GetWeatherArgs",
        arguments: { city: "Edinburgh", country: "GB", units: "c" },
        rawArguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}',
      },
      {
        type: "tool_call",
        id: "call_DNYTawLBoN8fj3KN6qU9N1Ou",
        name: "get_stock_price",
        arguments: { ticker: "AAPL", exchange: "NASDAQ" },
        rawArguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}',
      },
    ]);
    expect(ofType(events, "usage")).toEqual([{ type: "usage", usage: { inputTokens: 149, outputTokens: 60, reasoningTokens: 0 } }]);
    expect(doneResult(events)).toEqual({
      id: "chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63",
      model: "gpt-4o-2024-08-06",
      message: { role: "assistant", content: calls },
      stopReason: "tool_calls",
      usage: { inputTokens: 149, outputTokens: 60, reasoningTokens: 0 },
    });
  });

  it("strict and non-strict single tool calls", async () => {
    const strict = doneResult(await streamBin("a247c49c5fcd492bfb7a02a3306ad615ed8d8f649888ebfddfbc3ee151f44d46"));
    expect(strict.message.content).toEqual([
      {
        type: "tool_call",
        id: "call_CTf1nWJLqSeRgDqaCG27xZ74",
        name: "get_weather",
        arguments: { city: "San Francisco", state: "CA" },
        rawArguments: '{"city":"San Francisco","state":"CA"}',
      },
    ]);
    expect(strict.usage).toEqual({ inputTokens: 48, outputTokens: 19, reasoningTokens: 0 });
    const loose = doneResult(await streamBin("2018feb66ae13fcf5333d61b95849decc68d3f63bd38172889367e1afb1e04f7"));
    expect(loose.message.content).toMatchObject([
      { id: "call_4XzlGBLtUe9dy3GVNV4jhq7h", name: "get_weather", arguments: { city: "New York City" } },
    ]);
    expect(loose.stopReason).toBe("tool_calls");
  });

  it("plain text: start, text run, end, usage, done", async () => {
    const events = await streamBin("e2aad469b71d1d4894ff833ea147020a9d875eb7ce644a0ff355581690a4cbfd");
    expect(eventOutline(events)).toEqual(["start", "text_start", "text_delta*", "text_end", "usage", "done"]);
    const text =
      "I'm unable to provide real-time weather updates. To get the current weather in San Francisco, I recommend checking a reliable weather website or a weather app.";
    expect(ofType(events, "text_delta").map((event) => event.delta).join("")).toBe(text);
    expect(ofType(events, "text_end")).toEqual([{ type: "text_end", text }]);
    expect(doneResult(events)).toMatchObject({ message: { content: [{ type: "text", text }] }, stopReason: "stop" });
    expect(doneResult(events).usage).toEqual({ inputTokens: 14, outputTokens: 30, reasoningTokens: 0 });
  });

  it("max_tokens cut: stop reason length", async () => {
    const result = doneResult(await streamBin("4cc50a6135d254573a502310e6af1246f55edb6ad95fa24059f160996b68866d"));
    expect(result.message.content).toEqual([{ type: "text", text: '{"' }]);
    expect(result.stopReason).toBe("length");
    expect(result.usage).toEqual({ inputTokens: 79, outputTokens: 1, reasoningTokens: 0 });
  });

  it("refusal deltas become text and stop reason content_filter", async () => {
    const events = await streamBin("173417d553406f034f643e5db3f8d591fb691ebac56f5ae39a22cc7d455c5353");
    expect(ofType(events, "text_end")).toEqual([{ type: "text_end", text: "I'm sorry, I can't assist with that request." }]);
    expect(doneResult(events).stopReason).toBe("content_filter");
  });

  it("n=3: only choice 0 is used", async () => {
    const result = doneResult(await streamBin("a491adda08c3d4fde95f5b2ee3f60f7f745f1a56d82e62f58031cc2add502380"));
    expect(result.message.content).toHaveLength(1);
    const text = result.message.content[0]?.type === "text" ? result.message.content[0].text : "";
    expect(JSON.parse(text)).toEqual({ city: "San Francisco", temperature: 65, units: "f" });
  });

  it("logprobs chunks do not disturb the text", async () => {
    const result = doneResult(await streamBin("83b060bae42eb41c4f1edbb7c1542b954b37d9dfd1910b964ddebc9677e6ae85"));
    expect(result.message.content).toEqual([{ type: "text", text: "Foo!" }]);
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 2, reasoningTokens: 0 });
  });

  it("OpenAI text chunks (obfuscation, choices:[] usage chunk) give the same shape as the JSON response", async () => {
    const events = await streamChunks("openai-chat/openai-text.chunks.txt");
    const result = doneResult(events);
    expect(events[0]).toEqual({ type: "start", id: "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0", model: "gpt-4.1-nano-2025-04-14" });
    expect(result.usage).toEqual({ inputTokens: 16, outputTokens: 300, cacheReadTokens: 0, reasoningTokens: 0 });
    const text = result.message.content[0]?.type === "text" ? result.message.content[0].text : "";
    expect(text.startsWith("**Holiday Name:**")).toBe(true);
    expect(text.endsWith(" respect.")).toBe(true);
    expect(shape(result)).toEqual(shape(await completeJson("openai-chat/openai-text.json")));
  });

  it("Azure model router: the prompt_filter_results chunk (empty id/model/choices) is skipped", async () => {
    const events = await streamChunks("azure-openai/azure-model-router.1.chunks.txt");
    expect(events[0]).toEqual({ type: "start", id: "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt", model: "gpt-5-nano-2025-08-07" });
    expect(eventOutline(events)).toEqual(["start", "text_start", "text_delta*", "text_end", "usage", "done"]);
    expect(doneResult(events)).toMatchObject({
      message: { content: [{ type: "text", text: "Capital of Denmark." }] },
      stopReason: "stop",
      usage: { inputTokens: 15, outputTokens: 78, cacheReadTokens: 0, reasoningTokens: 64 },
    });
  });
});

describe("openai-chat stream(): compatible providers", () => {
  it("DeepSeek: reasoning_content stream, then a tool call streamed token by token; usage in the finish chunk", async () => {
    const events = await streamChunks("deepseek/deepseek-tool-call.chunks.txt");
    expect(eventOutline(events)).toEqual([
      "start",
      "reasoning_start",
      "reasoning_delta*",
      "reasoning_end",
      "tool_call_start",
      "tool_call_delta*",
      "tool_call_end",
      "usage",
      "done",
    ]);
    const [reasoningEnd] = ofType(events, "reasoning_end");
    expect(reasoningEnd?.block.providerData).toEqual({ origin: PROVIDER, data: { field: "reasoning_content" } });
    expect(reasoningEnd?.block.text).toBe(ofType(events, "reasoning_delta").map((event) => event.delta).join(""));
    const result = doneResult(events);
    expect(result.message.content[1]).toEqual({
      type: "tool_call",
      id: "call_00_ioIn7yN9p1ZOMNpDLwd4MgAF",
      name: "weather",
      arguments: { location: "San Francisco" },
      rawArguments: '{"location": "San Francisco"}',
    });
    expect(result.usage).toEqual({ inputTokens: 339, outputTokens: 83, cacheReadTokens: 320, reasoningTokens: 39 });
    expect(shape(result)).toEqual(shape(await completeJson("deepseek/deepseek-tool-call.json")));
  });

  it("DeepSeek reasoning then text", async () => {
    const events = await streamChunks("deepseek/deepseek-reasoning.chunks.txt");
    expect(eventOutline(events)).toEqual([
      "start",
      "reasoning_start",
      "reasoning_delta*",
      "reasoning_end",
      "text_start",
      "text_delta*",
      "text_end",
      "usage",
      "done",
    ]);
    const result = doneResult(events);
    expect(result.usage).toEqual({ inputTokens: 18, outputTokens: 219, cacheReadTokens: 0, reasoningTokens: 205 });
    expect(shape(result)).toEqual(shape(await completeJson("deepseek/deepseek-reasoning.json")));
  });

  it("xAI: reasoning, whole tool call in one delta, choices:[] usage chunk", async () => {
    const events = await streamChunks("xai/xai-tool-call.chunks.txt");
    expect(ofType(events, "reasoning_end")[0]?.block.text).toBe("First, the user is");
    expect(ofType(events, "tool_call_start")).toEqual([{ type: "tool_call_start", index: 0, id: "call_55117580", name: "weather" }]);
    const result = doneResult(events);
    expect(result.usage).toEqual({ inputTokens: 291, outputTokens: 26, cacheReadTokens: 290, reasoningTokens: 196 });
    expect(shape(result)).toEqual(shape(await completeJson("xai/xai-tool-call.json")));
  });

  it("xAI through the generic compatible path (long untrimmed reasoning)", async () => {
    const result = doneResult(await streamChunks("openai-compatible/xai-tool-call.chunks.txt"));
    expect(result.message.content[1]).toMatchObject({ id: "call_79382389", arguments: { location: "San Francisco" } });
    expect(shape(result)).toEqual(shape(await completeJson("openai-compatible/xai-tool-call.json")));
  });

  it("Groq: whole call in one delta, usage only in x_groq on the finish chunk", async () => {
    const events = await streamChunks("groq/groq-tool-call.chunks.txt");
    const result = doneResult(events);
    expect(result.message.content).toEqual([
      { type: "tool_call", id: "tk85n1k4m", name: "weather", arguments: {}, rawArguments: "{}" },
    ]);
    expect(result.usage).toEqual({ inputTokens: 210, outputTokens: 15 });
    expect(shape(result)).toEqual(shape(await completeJson("groq/groq-tool-call.json")));
  });

  it("Groq usage is read from x_groq when top-level usage is absent", async () => {
    const lines = chunkLines("groq/groq-tool-call.chunks.txt").map((line) => {
      const chunk = JSON.parse(line);
      delete chunk.usage;
      return JSON.stringify(chunk);
    });
    const body = openAiSseFromChunks(lines);
    const result = doneResult(await streamWith((_req, res) => sendSse(res, body)));
    expect(result.usage).toEqual({ inputTokens: 210, outputTokens: 15 });
  });

  it("Groq reasoning in `delta.reasoning` (~1100 chunks)", async () => {
    const events = await streamChunks("groq/groq-reasoning.chunks.txt");
    const result = doneResult(events);
    expect(result.message.content[0]).toMatchObject({ type: "reasoning", providerData: { origin: PROVIDER, data: { field: "reasoning" } } });
    expect(result.message.content[0]?.type === "reasoning" && result.message.content[0].text.startsWith("Okay,")).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 17, outputTokens: 1107, reasoningTokens: 963 });
    expect(shape(result)).toEqual(shape(await completeJson("groq/groq-reasoning.json")));
  });

  it("Alibaba: continuation deltas with id:\"\" and a trailing empty-args delta", async () => {
    const events = await streamChunks("alibaba/alibaba-tool-call.chunks.txt");
    expect(ofType(events, "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "call_eee11723464a4b9eb8cee71d", name: "weather" },
    ]);
    expect(ofType(events, "tool_call_delta").map((event) => [event.id, event.delta])).toEqual([
      ["call_eee11723464a4b9eb8cee71d", '{"location": "San Francisco'],
      ["call_eee11723464a4b9eb8cee71d", '"}'],
    ]);
    const result = doneResult(events);
    expect(result.message.content).toEqual([
      {
        type: "tool_call",
        id: "call_eee11723464a4b9eb8cee71d",
        name: "weather",
        arguments: { location: "San Francisco" },
        rawArguments: '{"location": "San Francisco"}',
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 295, outputTokens: 22, cacheReadTokens: 0 });
    expect(shape(result)).toEqual(shape(await completeJson("alibaba/alibaba-tool-call.json")));
  });

  it("Alibaba reasoning", async () => {
    const result = doneResult(await streamChunks("alibaba/alibaba-reasoning.chunks.txt"));
    expect(result.usage).toEqual({ inputTokens: 24, outputTokens: 1355, cacheReadTokens: 0, reasoningTokens: 1084 });
    expect(shape(result)).toEqual(shape(await completeJson("alibaba/alibaba-reasoning.json")));
  });

  it("Mistral incremental call: continuation with no id and name \"\", usage on the finish chunk", async () => {
    const events = await streamChunks("mistral/mistral-incremental-tool-call.chunks.txt");
    expect(ofType(events, "tool_call_start")).toEqual([
      { type: "tool_call_start", index: 0, id: "chatcmpl-tool-9f149c74c42f265b", name: "webSearchTool" },
    ]);
    const result = doneResult(events);
    expect(result).toEqual({
      id: "735e434874a24f68a2390b3cab149242",
      model: "zai-glm-5-2",
      message: {
        role: "assistant",
        content: [
          {
            type: "tool_call",
            id: "chatcmpl-tool-9f149c74c42f265b",
            name: "webSearchTool",
            arguments: { query: "current Berlin weather" },
            rawArguments: '{"query": "current Berlin weather"}',
          },
        ],
      },
      stopReason: "tool_calls",
      usage: { inputTokens: 171, outputTokens: 14, cacheReadTokens: 128 },
    });
  });

  it("Mistral whole call without index: streamed result equals complete() exactly", async () => {
    const events = await streamChunks("mistral/mistral-tool-call.chunks.txt");
    expect(eventOutline(events)).toEqual(["start", "tool_call_start", "tool_call_delta*", "tool_call_end", "usage", "done"]);
    expect(doneResult(events)).toEqual(await completeJson("mistral/mistral-tool-call.json"));
  });

  it("Claude through an OpenAI-format proxy: sparse tool index starting at 1, text before the call", async () => {
    const events = await streamWith(rawSse("openai-compatible/anthropic-fallback-tool-call.sse"));
    expect(eventOutline(events)).toEqual([
      "start",
      "text_start",
      "text_delta*",
      "text_end",
      "tool_call_start",
      "tool_call_delta*",
      "tool_call_end",
      "usage",
      "done",
    ]);
    expect(ofType(events, "tool_call_start")).toEqual([{ type: "tool_call_start", index: 0, id: "toolu_sanitized", name: "read_file" }]);
    expect(doneResult(events)).toEqual({
      id: "msg_sanitized",
      model: "claude-haiku-4-5-20251001",
      message: {
        role: "assistant",
        content: [
          { type: "text", text: "Reading it." },
          { type: "tool_call", id: "toolu_sanitized", name: "read_file", arguments: { path: "a.txt" }, rawArguments: '{"path": "a.txt"}' },
        ],
      },
      stopReason: "tool_calls",
      // this proxy sends no usage at all
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it("Cerebras: `reasoning` deltas then a whole no-arg call; usage with time_info", async () => {
    // The recording holds two consecutive streams; serve the first one.
    const lines = chunkLines("cerebras/cererebras-structured-output-tools.1.chunks.txt");
    const firstId = JSON.parse(lines[0]!).id;
    const first = lines.filter((line) => JSON.parse(line).id === firstId);
    const body = openAiSseFromChunks(first);
    const result = doneResult(await streamWith((_req, res) => sendSse(res, body)));
    expect(result.message.content[1]).toEqual({ type: "tool_call", id: "bbd2b9d98", name: "nonUsefulTool", arguments: {}, rawArguments: "{}" });
    expect(result.usage).toEqual({ inputTokens: 322, outputTokens: 104, cacheReadTokens: 256, reasoningTokens: 97 });
    expect(shape(result)).toEqual(shape(await completeJson("cerebras/cerebras-structured-output-tools.1.json")));
  });
});
