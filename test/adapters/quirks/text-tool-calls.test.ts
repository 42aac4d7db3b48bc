/**
 * Hermes/Qwen tool calls printed as text: extracted from a whole message, and from a stream cut
 * anywhere (also in the middle of a tag), with the same result and without holding back any
 * text that cannot be the start of a tag.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractTextToolCalls, TextToolCallParser } from "../../../src/adapters/quirks/index.ts";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { renderCompletion, renderSse } from "../../helpers/strict-fakes/render.ts";
import { adapterFor, callModel, callsOf, collect, opening, request, textOf } from "./harness.ts";

const WEATHER = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>';
const TIME = '<tool_call>\n{"name": "get_time", "arguments": {"zone": "Europe/Paris"}}\n</tool_call>';
const CONTENT = `I'll check both.\n${WEATHER}\n${TIME}`;

const expectedCalls = [
  { name: "get_weather", arguments: '{"city":"Paris"}' },
  { name: "get_time", arguments: '{"zone":"Europe/Paris"}' },
];

/** Feeds the pieces one by one; returns the joined output and what each push gave out. */
function streamPieces(pieces: string[]) {
  const parser = new TextToolCallParser();
  const outputs = pieces.map((piece) => parser.push(piece));
  const last = parser.end();
  return {
    text: outputs.map((o) => o.text).join("") + last.text,
    calls: [...outputs.flatMap((o) => o.calls), ...last.calls],
    outputs,
  };
}

describe("Hermes text tool calls: parser", () => {
  it("a whole message: calls out, text kept, the whitespace between calls dropped", () => {
    expect(extractTextToolCalls(CONTENT)).toEqual({ text: "I'll check both.\n", calls: expectedCalls });
  });

  it("every split point of the message into two deltas gives the same result", () => {
    for (let at = 0; at <= CONTENT.length; at++) {
      const out = streamPieces([CONTENT.slice(0, at), CONTENT.slice(at)]);
      expect({ text: out.text, calls: out.calls }, `split at ${at}`).toEqual({ text: "I'll check both.\n", calls: expectedCalls });
    }
  });

  it("one character per delta gives the same result", () => {
    const out = streamPieces([...CONTENT]);
    expect({ text: out.text, calls: out.calls }).toEqual({ text: "I'll check both.\n", calls: expectedCalls });
  });

  it("ordinary text goes out at once; only a possible tag start is held", () => {
    const parser = new TextToolCallParser();
    expect(parser.push("Hello wor").text).toBe("Hello wor");
    expect(parser.push("ld <to").text).toBe("ld ");
    expect(parser.push("ken> is not a tag").text).toBe("<token> is not a tag");
    expect(parser.push(" a < b").text).toBe(" a < b");
    expect(parser.push(" <").text).toBe(" ");
    expect(parser.end()).toEqual({ text: "<", calls: [] });
  });

  it("text after a call stays, without the blank line that separated it", () => {
    expect(extractTextToolCalls(`${WEATHER}\n\nDone.`)).toEqual({ text: "Done.", calls: [expectedCalls[0]] });
  });

  it("a call missing its last brace is repaired; a tag without a call inside stays text", () => {
    expect(extractTextToolCalls('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}</tool_call>').calls).toEqual([expectedCalls[0]]);
    const notACall = "<tool_call>just words</tool_call>";
    expect(extractTextToolCalls(notACall)).toEqual({ text: notACall, calls: [] });
  });

  it("an unclosed call at the end still counts; `parameters` and string arguments are read too", () => {
    expect(extractTextToolCalls('<tool_call>{"name": "get_time", "parameters": {"zone": "UTC"}}').calls).toEqual([
      { name: "get_time", arguments: '{"zone":"UTC"}' },
    ]);
    expect(extractTextToolCalls('<tool_call>{"name": "get_time", "arguments": "{\\"zone\\": \\"UTC\\"}"}</tool_call>').calls).toEqual([
      { name: "get_time", arguments: '{"zone": "UTC"}' },
    ]);
  });
});

describe("Hermes text tool calls through the adapter (vllm preset)", () => {
  let upstream: FakeUpstream;
  let piece = 1;
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = { content: CONTENT, finish: "stop" };
      if (req.body.stream) sendSse(res, renderSse(message, "qwen3", { piece }));
      else sendJson(res, 200, renderCompletion(message, "qwen3"));
    });
  });
  afterAll(() => upstream.close());

  const fake = () => `${upstream.url}/v1`;

  it("non-streamed: real tool calls, the text without them, finish stop read as tool_calls", async () => {
    const result = await callModel(adapterFor(fake(), "vllm"), request(opening()), "complete");
    expect(result.stopReason).toBe("tool_calls");
    expect(textOf(result.message)).toBe("I'll check both.\n");
    expect(callsOf(result.message).map((c) => ({ name: c.name, arguments: c.rawArguments }))).toEqual(expectedCalls);
  });

  it("streamed in pieces of 1 to 13 characters (tags cut mid-token): the same calls and text", async () => {
    const plain = await callModel(adapterFor(fake(), "vllm"), request(opening()), "complete");
    for (piece = 1; piece <= 13; piece++) {
      const events = await collect(adapterFor(fake(), "vllm").stream(request(opening())));
      const done = events.at(-1);
      if (done?.type !== "done") throw new Error("no done");
      expect(textOf(done.result.message), `piece ${piece}`).toBe(textOf(plain.message));
      expect(callsOf(done.result.message).map((c) => [c.name, c.arguments]), `piece ${piece}`).toEqual(callsOf(plain.message).map((c) => [c.name, c.arguments]));
      // No text event ever shows part of a tag.
      const shown = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
      expect(shown).toBe("I'll check both.\n");
      expect(events.filter((e) => e.type === "tool_call_start")).toHaveLength(2);
    }
  });
});

// GLM-4.5/4.7 print their calls with key/value tags inside the same <tool_call> tags.
const GLM_WEATHER = "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>";
const GLM_FORECAST =
  "<tool_call>forecast\n<arg_key>city</arg_key>\n<arg_value>10115</arg_value>\n<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n" +
  '<arg_key>units</arg_key><arg_value>["C","F"]</arg_value>\n<arg_key>detail</arg_key>\n<arg_value>{"hourly": true}</arg_value>\n</tool_call>';
const GLM_CONTENT = `Let me look.\n${GLM_WEATHER}\n${GLM_FORECAST}`;
/** As the forecast tool declares them: `city` is a string, the rest is not. */
const forecastStrings = (tool: string, argument: string) => tool === "forecast" && argument === "city";

describe("GLM text tool calls: parser", () => {
  it("name and key/value pairs become a call; values are JSON unless the argument is a string", () => {
    const { text, calls } = extractTextToolCalls(GLM_CONTENT, { stringArgument: forecastStrings });
    expect(text).toBe("Let me look.\n");
    expect(calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) }))).toEqual([
      { name: "get_weather", arguments: { city: "Paris" } },
      // "10115" stays text (a string argument, though it reads as a number); 3, the array and the object are JSON.
      { name: "forecast", arguments: { city: "10115", days: 3, units: ["C", "F"], detail: { hourly: true } } },
    ]);
  });

  it("without a declared type, a value that is JSON is read as JSON, any other stays text (as vLLM does)", () => {
    const { calls } = extractTextToolCalls("<tool_call>f<arg_key>n</arg_key><arg_value>42</arg_value><arg_key>s</arg_key><arg_value>hi there</arg_value></tool_call>");
    expect(JSON.parse(calls[0]!.arguments)).toEqual({ n: 42, s: "hi there" });
  });

  it("a call without arguments is a call with {}", () => {
    expect(extractTextToolCalls("<tool_call>get_time</tool_call>").calls).toEqual([{ name: "get_time", arguments: "{}" }]);
  });

  it("anything else inside the tags is not a call: the text stays as it was", () => {
    for (const content of ["<tool_call>two words</tool_call>", "<tool_call>f<arg_key>a</arg_key>dangling</tool_call>", "<tool_call></tool_call>"]) {
      const { text, calls } = extractTextToolCalls(content);
      expect(calls, content).toEqual([]);
      expect(text, content).toBe(content);
    }
  });

  it("one character per delta gives the same calls and text as the whole message", () => {
    const whole = extractTextToolCalls(GLM_CONTENT, { stringArgument: forecastStrings });
    const parser = new TextToolCallParser({ stringArgument: forecastStrings });
    const outputs = [...GLM_CONTENT].map((char) => parser.push(char));
    const last = parser.end();
    expect(outputs.map((o) => o.text).join("") + last.text).toBe(whole.text);
    expect([...outputs.flatMap((o) => o.calls), ...last.calls]).toEqual(whole.calls);
  });
});

describe("GLM text tool calls through the adapter (vllm preset): string arguments come from the offered tools", () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = { content: GLM_CONTENT, finish: "stop" };
      if (req.body.stream) sendSse(res, renderSse(message, "glm-4.5-air", { piece: 4 }));
      else sendJson(res, 200, renderCompletion(message, "glm-4.5-air"));
    });
  });
  afterAll(() => upstream.close());

  const forecastTool = {
    name: "forecast",
    inputSchema: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" }, units: { type: "array" }, detail: { type: "object" } } },
  };
  const weatherTool = { name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } };

  for (const mode of ["complete", "stream"] as const) {
    it(`${mode}: both calls, typed by the offered schemas, finish read as tool_calls`, async () => {
      const result = await callModel(adapterFor(`${upstream.url}/v1`, "vllm"), request(opening(), { tools: [weatherTool, forecastTool] }), mode);
      expect(result.stopReason).toBe("tool_calls");
      expect(textOf(result.message)).toBe("Let me look.\n");
      expect(callsOf(result.message).map((c) => [c.name, c.arguments])).toEqual([
        ["get_weather", { city: "Paris" }],
        ["forecast", { city: "10115", days: 3, units: ["C", "F"], detail: { hourly: true } }],
      ]);
    });
  }
});

// Gemma 4: its own tags, bare keys, strings between <|"|> tokens.
const Q = '<|"|>';
const GEMMA_WEATHER = `<|tool_call>call:get_weather{city:${Q}Paris, "16e"${Q}}<tool_call|>`;
const GEMMA_FORECAST = `<|tool_call>call:forecast{city:${Q}10115${Q},days:3,metric:true,note:null,units:[${Q}C${Q},${Q}F${Q}],detail:{hourly:false,step:1.5}}<tool_call|>`;
const GEMMA_CONTENT = `Checking.\n${GEMMA_WEATHER}\n${GEMMA_FORECAST}`;

describe("Gemma 4 text tool calls: parser", () => {
  it("bare keys, <|\"|> strings (kept exactly, quotes and commas included), scalars, lists and nested dicts", () => {
    const { text, calls } = extractTextToolCalls(GEMMA_CONTENT);
    expect(text).toBe("Checking.\n");
    expect(calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) }))).toEqual([
      { name: "get_weather", arguments: { city: 'Paris, "16e"' } },
      { name: "forecast", arguments: { city: "10115", days: 3, metric: true, note: null, units: ["C", "F"], detail: { hourly: false, step: 1.5 } } },
    ]);
  });

  it("JSON-quoted keys and strings are read too; a call without a body has no arguments", () => {
    expect(extractTextToolCalls('<|tool_call>call:f{"a":"x","b":[1,2]}<tool_call|>').calls).toEqual([{ name: "f", arguments: '{"a":"x","b":[1,2]}' }]);
    expect(extractTextToolCalls("<|tool_call>call:get_time{}<tool_call|>").calls).toEqual([{ name: "get_time", arguments: "{}" }]);
    expect(extractTextToolCalls("<|tool_call>call:get_time<tool_call|>").calls).toEqual([{ name: "get_time", arguments: "{}" }]);
  });

  it("what does not read as a call stays text, exactly as it came", () => {
    for (const content of [
      "<|tool_call>get_weather{city:1}<tool_call|>",
      `<|tool_call>call:f{city:${Q}unterminated}<tool_call|>`,
      "<|tool_call>call:f{a:1,,b:2}<tool_call|>",
      "<|tool_call>call:f{a:1} trailing<tool_call|>",
      "<|tool_call>call:two words{}<tool_call|>",
    ]) {
      const { text, calls } = extractTextToolCalls(content);
      expect(calls, content).toEqual([]);
      expect(text, content).toBe(content);
    }
  });

  it("one character per delta gives the same calls and text; no tag fragment is ever shown", () => {
    const whole = extractTextToolCalls(GEMMA_CONTENT);
    const parser = new TextToolCallParser();
    const outputs = [...GEMMA_CONTENT].map((char) => parser.push(char));
    const last = parser.end();
    expect(outputs.map((o) => o.text).join("") + last.text).toBe(whole.text);
    expect([...outputs.flatMap((o) => o.calls), ...last.calls]).toEqual(whole.calls);
    expect(outputs.map((o) => o.text).join("")).not.toContain("<");
  });

  it("Hermes, GLM and Gemma calls in one content are all found, text between them kept", () => {
    const { text, calls } = extractTextToolCalls(`A ${WEATHER} B ${GLM_WEATHER} C ${GEMMA_WEATHER} D`);
    expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_weather", "get_weather"]);
    expect(text).toBe("A B C D");
  });
});

describe("Gemma 4 text tool calls through the adapter (vllm preset)", () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = { content: GEMMA_CONTENT, finish: "stop" };
      if (req.body.stream) sendSse(res, renderSse(message, "gemma-4-31b-it", { piece: 3 }));
      else sendJson(res, 200, renderCompletion(message, "gemma-4-31b-it"));
    });
  });
  afterAll(() => upstream.close());

  for (const mode of ["complete", "stream"] as const) {
    it(`${mode}: real tool calls, the text without them, finish read as tool_calls`, async () => {
      const tools = [
        { name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } },
        { name: "forecast", inputSchema: { type: "object" } },
      ];
      const result = await callModel(adapterFor(`${upstream.url}/v1`, "vllm"), request(opening(), { tools }), mode);
      expect(result.stopReason).toBe("tool_calls");
      expect(textOf(result.message)).toBe("Checking.\n");
      expect(callsOf(result.message).map((c) => [c.name, c.arguments])).toEqual([
        ["get_weather", { city: 'Paris, "16e"' }],
        ["forecast", { city: "10115", days: 3, metric: true, note: null, units: ["C", "F"], detail: { hourly: false, step: 1.5 } }],
      ]);
    });
  }
});

describe("text tool calls: only offered tools count", () => {
  const offered = (name: string) => name === "get_weather";

  it("text that merely mentions the tags stays text, exactly", () => {
    for (const content of ["The <tool_call> and </tool_call> tags", "Wrap each call in <tool_call>...</tool_call>.", "Gemma writes <|tool_call>call:anything{}<tool_call|>."]) {
      const { text, calls } = extractTextToolCalls(content, { offered });
      expect(calls, content).toEqual([]);
      expect(text, content).toBe(content);
    }
  });

  it("a call of an offered tool is taken, in any of the formats", () => {
    const { calls } = extractTextToolCalls(`${WEATHER} ${GLM_WEATHER} ${GEMMA_WEATHER}`, { offered });
    expect(calls.map((call) => call.name)).toEqual(["get_weather", "get_weather", "get_weather"]);
  });

  it("GLM keys never run past their own </arg_key>, and __proto__ is an ordinary argument", () => {
    expect(extractTextToolCalls("<tool_call>f<arg_key>a</arg_key>junk<arg_key>b</arg_key><arg_value>1</arg_value></tool_call>").calls).toEqual([]);
    const { calls } = extractTextToolCalls("<tool_call>f<arg_key>__proto__</arg_key><arg_value>{\"x\":1}</arg_value></tool_call>");
    expect(calls).toHaveLength(1);
    expect(Object.getOwnPropertyNames(JSON.parse(calls[0]!.arguments))).toEqual(["__proto__"]);
  });
});

describe("text tool calls through the adapter: a model writing about the tags is not calling anything", () => {
  let upstream: FakeUpstream;
  const ABOUT_TAGS = "Models print calls between <tool_call> and </tool_call> tags.";
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = { content: ABOUT_TAGS, finish: "stop" };
      if (req.body.stream) sendSse(res, renderSse(message, "qwen3", { piece: 2 }));
      else sendJson(res, 200, renderCompletion(message, "qwen3"));
    });
  });
  afterAll(() => upstream.close());

  for (const mode of ["complete", "stream"] as const) {
    it(`${mode}: the text is kept whole and the turn ends with stop`, async () => {
      const tools = [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];
      const result = await callModel(adapterFor(`${upstream.url}/v1`, "vllm"), request(opening(), { tools }), mode);
      expect(callsOf(result.message)).toEqual([]);
      expect(textOf(result.message)).toBe(ABOUT_TAGS);
      expect(result.stopReason).toBe("stop");
    });
  }
});

describe("text tool calls cut off at the token limit (finish_reason length)", () => {
  let upstream: FakeUpstream;
  const CUT = 'Moving it.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par';
  let finish = "length";
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = { content: CUT, finish };
      if (req.body.stream) sendSse(res, renderSse(message, "qwen3", { piece: 3 }));
      else sendJson(res, 200, renderCompletion(message, "qwen3"));
    });
  });
  afterAll(() => upstream.close());
  const tools = [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];

  for (const mode of ["complete", "stream"] as const) {
    for (const cut of ["length", "content_filter"] as const) {
      it(`${mode}: the half call is not run; the text comes back as it was, finish ${cut}`, async () => {
        finish = cut;
        const result = await callModel(adapterFor(`${upstream.url}/v1`, "vllm"), request(opening(), { tools }), mode);
        expect(callsOf(result.message)).toEqual([]);
        expect(textOf(result.message)).toBe(CUT);
        expect(result.stopReason).toBe(cut);
      });
    }

    it(`${mode}: the same content ending normally (a server that drops the closing tag) is still a call`, async () => {
      finish = "stop";
      const result = await callModel(adapterFor(`${upstream.url}/v1`, "vllm"), request(opening(), { tools }), mode);
      expect(callsOf(result.message).map((c) => c.name)).toEqual(["get_weather"]);
    });
  }
});

describe("Mistral text tool calls ([TOOL_CALLS], to the end of the content)", () => {
  const OLD = 'Let me check.[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {"zone": "Europe/Paris"}}]';
  const NEW = 'Let me check.[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]{"zone": "Europe/Paris"}';
  const both = [
    { name: "get_weather", arguments: '{"city":"Paris"}' },
    { name: "get_time", arguments: '{"zone":"Europe/Paris"}' },
  ];

  it("both shapes (a JSON list before v11; name{…} and name[ARGS]{…} after) give the same calls, the text before kept", () => {
    for (const content of [OLD, NEW]) {
      const { text, calls } = extractTextToolCalls(content);
      expect(text, content).toBe("Let me check.");
      expect(calls, content).toEqual(both);
    }
  });

  it("one character per delta gives the same result, and nothing after [TOOL_CALLS] is ever shown", () => {
    for (const content of [OLD, NEW]) {
      const parser = new TextToolCallParser();
      const outputs = [...content].map((char) => parser.push(char));
      const last = parser.end();
      expect(outputs.map((o) => o.text).join("") + last.text).toBe("Let me check.");
      expect([...outputs.flatMap((o) => o.calls), ...last.calls]).toEqual(both);
    }
  });

  it("stays text, exactly, when the calls do not read, name a tool not offered, or were cut off at the token limit", () => {
    const offered = (name: string) => name === "get_weather";
    for (const content of ["See [TOOL_CALLS] docs.", "[TOOL_CALLS] [not json", NEW]) {
      const { text, calls } = extractTextToolCalls(content, { offered });
      expect(calls, content).toEqual([]);
      expect(text, content).toBe(content);
    }
    const parser = new TextToolCallParser();
    const first = parser.push(NEW);
    const last = parser.end({ takeUnclosed: false });
    expect([...first.calls, ...last.calls]).toEqual([]);
    expect(first.text + last.text).toBe(NEW);
  });
});

describe("Mistral text tool calls through the adapter (vllm preset)", () => {
  let upstream: FakeUpstream;
  const CONTENT = 'On it.[TOOL_CALLS]get_weather{"city": "Paris"}';
  beforeAll(async () => {
    upstream = await startFakeUpstream((req, res) => {
      const message = { content: CONTENT, finish: "stop" };
      if (req.body.stream) sendSse(res, renderSse(message, "mistral-small", { piece: 3 }));
      else sendJson(res, 200, renderCompletion(message, "mistral-small"));
    });
  });
  afterAll(() => upstream.close());

  for (const mode of ["complete", "stream"] as const) {
    it(`${mode}: a real call, the text before it, finish read as tool_calls`, async () => {
      const tools = [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];
      const result = await callModel(adapterFor(`${upstream.url}/v1`, "vllm"), request(opening(), { tools }), mode);
      expect(result.stopReason).toBe("tool_calls");
      expect(textOf(result.message)).toBe("On it.");
      expect(callsOf(result.message).map((c) => [c.name, c.arguments])).toEqual([["get_weather", { city: "Paris" }]]);
    });
  }
});

describe("text tool calls: one scanner for every format", () => {
  const offered = (name: string) => ["a", "b", "write_file"].includes(name);
  const named = (content: string) => extractTextToolCalls(content, { offered }).calls.map((c) => [c.name, JSON.parse(c.arguments)]);

  it("another format's tag inside an argument string is text there, not a call", () => {
    expect(named('[TOOL_CALLS]write_file{"text":"<tool_call>a</tool_call>"}')).toEqual([["write_file", { text: "<tool_call>a</tool_call>" }]]);
    expect(named(`<|tool_call>call:b{s:${Q}<tool_call>a</tool_call>${Q}}<tool_call|>`)).toEqual([["b", { s: "<tool_call>a</tool_call>" }]]);
    expect(named(`<|tool_call>call:b{s:${Q}<tool_call>${Q}}<tool_call|><tool_call>{"name":"a"}</tool_call>`)).toEqual([
      ["b", { s: "<tool_call>" }],
      ["a", {}],
    ]);
  });

  it("calls come out in text order, whole and one character per delta alike", () => {
    const content = '<|tool_call>call:a{}<tool_call|><tool_call>{"name":"b"}</tool_call>';
    expect(named(content).map(([name]) => name)).toEqual(["a", "b"]);
    const parser = new TextToolCallParser({ offered });
    const streamed = [...[...content].flatMap((char) => parser.push(char).calls), ...parser.end().calls];
    expect(streamed.map((call) => call.name)).toEqual(["a", "b"]);
  });
});
