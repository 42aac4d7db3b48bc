/** Neutral requests as Gemini bodies: turns, parts, tools, tool choice, generation config, thinking. */
import { afterEach, describe, expect, it } from "vitest";
import { FOREIGN_CALL_SIGNATURE, PLACEHOLDER_USER_TEXT, toWireRequest } from "../../../src/adapters/gemini/index.ts";
import { UNANSWERED_RESULT_TEXT } from "../../../src/adapters/tool-pairing.ts";
import type { AssistantMessage, ChatRequest, Message, ToolCallBlock, ToolMessage } from "../../../src/core/index.ts";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { geminiHandler, geminiRejection, type GeminiRejection } from "../../helpers/gemini-native-fake.ts";
import { geminiSchemaErrors } from "../../helpers/gemini-schema-rules.ts";
import { adapterAt, PROVIDER, userText } from "./support.ts";

const wire = (request: Partial<ChatRequest> & { messages: Message[] }) => toWireRequest({ model: "gemini-3-pro-preview", ...request }, { origin: PROVIDER });

function call(id: string, name: string, args: Record<string, unknown> = {}, providerData?: ToolCallBlock["providerData"]): ToolCallBlock {
  return { type: "tool_call", id, name, arguments: args, rawArguments: JSON.stringify(args), ...(providerData ? { providerData } : {}) };
}
function results(...entries: [string, string, boolean?][]): ToolMessage {
  return { role: "tool", content: entries.map(([callId, text, isError]) => ({ type: "tool_result", callId, content: [{ type: "text", text }], isError: isError ?? false })) };
}
const own = (data: Record<string, unknown>) => ({ origin: PROVIDER, data });

/** The strict fake's verdict on a body (as the real API would judge it). */
function verdict(body: unknown, model = "gemini-3-pro-preview", issued: string[] = []): GeminiRejection | undefined {
  return geminiRejection({ method: "POST", path: `/v1beta/models/${model}:generateContent`, headers: {}, body, rawBody: "" }, { issued: new Set(issued) });
}

describe("the conversation", () => {
  it("system messages become one systemInstruction; user and assistant turns are user and model contents", () => {
    const body = wire({
      messages: [
        { role: "system", content: [{ type: "text", text: "Be brief." }] },
        userText("hi"),
        { role: "assistant", content: [{ type: "text", text: "Hello!" }] },
        { role: "system", content: [{ type: "text", text: "Answer in French." }] },
        userText("how are you?"),
      ],
    });
    expect(body.systemInstruction).toEqual({ parts: [{ text: "Be brief.\n\nAnswer in French." }] });
    expect(body.contents).toEqual([
      { role: "user", parts: [{ text: "hi" }] },
      { role: "model", parts: [{ text: "Hello!" }] },
      { role: "user", parts: [{ text: "how are you?" }] },
    ]);
    expect(verdict(body)).toBeUndefined();
  });

  it("Gemma takes no system instruction: it opens the first user turn instead", () => {
    const body = toWireRequest({ model: "gemma-3-27b-it", messages: [{ role: "system", content: [{ type: "text", text: "Be brief." }] }, userText("hi")] }, { origin: PROVIDER });
    expect(body.systemInstruction).toBeUndefined();
    expect(body.contents).toEqual([{ role: "user", parts: [{ text: "Be brief." }, { text: "hi" }] }]);
  });

  it("images, audio and resources become inline data, file data or text; empty text is left out", () => {
    const body = wire({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "" },
            { type: "text", text: "look" },
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" } },
            { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
            { type: "image", source: { kind: "url", url: "data:image/webp;base64,UklGR" } },
            { type: "audio", mediaType: "audio/wav", data: "UklGRgAA" },
            { type: "resource", uri: "file:///a.txt", text: "alpha" },
            { type: "resource", uri: "file:///b.pdf", mimeType: "application/pdf", blob: "JVBERi0" },
          ],
        },
      ],
    });
    expect(body.contents[0]!.parts).toEqual([
      { text: "look" },
      { inlineData: { mimeType: "image/png", data: "iVBOR" } },
      { fileData: { fileUri: "https://example.com/cat.jpg", mimeType: "image/jpeg" } },
      { inlineData: { mimeType: "image/webp", data: "UklGR" } },
      { inlineData: { mimeType: "audio/wav", data: "UklGRgAA" } },
      { text: "Resource file:///a.txt:\nalpha" },
      { inlineData: { mimeType: "application/pdf", data: "JVBERi0" } },
    ]);
  });

  it("a conversation that starts with the model gets a user turn first", () => {
    const body = wire({ messages: [{ role: "assistant", content: [call("c1", "lookup")] }, results(["c1", "found"])] });
    expect(body.contents[0]).toEqual({ role: "user", parts: [{ text: PLACEHOLDER_USER_TEXT }] });
    expect(verdict(body)).toBeUndefined();
  });
});

describe("function calls and responses", () => {
  it("parallel calls: one model content, then one content of responses in call order, named after their calls, without ids", () => {
    const signature = "CiQBsig==";
    const body = wire({
      messages: [
        userText("weather and time"),
        { role: "assistant", content: [{ type: "text", text: "Checking." }, call("c1", "get_weather", { city: "Paris" }, own({ thoughtSignature: signature })), call("c2", "get_time", { zone: "CET" })] },
        // Results in another order, split over two messages, one without its name: paired by call id.
        results(["c2", "14:05"]),
        { role: "tool", content: [{ type: "tool_result", callId: "c1", name: "get_weather", content: [{ type: "text", text: "sunny" }], isError: false }] },
      ],
    });
    expect(body.contents.slice(1)).toEqual([
      { role: "model", parts: [{ text: "Checking." }, { functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: signature }, { functionCall: { name: "get_time", args: { zone: "CET" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "sunny" } } }, { functionResponse: { name: "get_time", response: { output: "14:05" } } }] },
    ]);
    expect(verdict(body, "gemini-3-pro-preview", [signature])).toBeUndefined();
  });

  it("a failed result is an `error` response; structured content stands in for no text", () => {
    const body = wire({
      messages: [
        userText("go"),
        { role: "assistant", content: [call("a", "one"), call("b", "two")] },
        {
          role: "tool",
          content: [
            { type: "tool_result", callId: "a", content: [{ type: "text", text: "boom" }], isError: true },
            { type: "tool_result", callId: "b", content: [], structured: { rows: 2 }, isError: false },
          ],
        },
      ],
    });
    expect(body.contents[2]!.parts).toEqual([
      { functionResponse: { name: "one", response: { error: "boom" } } },
      { functionResponse: { name: "two", response: { output: { rows: 2 } } } },
    ]);
  });

  it("images in a result: function-response parts on Gemini 3, a note for older models", () => {
    const messages: Message[] = [
      userText("shot"),
      { role: "assistant", content: [call("a", "screenshot")] },
      { role: "tool", content: [{ type: "tool_result", callId: "a", content: [{ type: "text", text: "here" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBOR" } }], isError: false }] },
    ];
    expect(wire({ messages }).contents[2]!.parts[0]).toEqual({ functionResponse: { name: "screenshot", response: { output: "here" }, parts: [{ inlineData: { mimeType: "image/png", data: "iVBOR" } }] } });
    const older = toWireRequest({ model: "gemini-2.5-flash", messages }, { origin: PROVIDER });
    expect(older.contents[2]!.parts[0]!.functionResponse).toEqual({ name: "screenshot", response: { output: "here\n[image/png image omitted: this model takes no media in function responses]" } });
  });

  it("repairs the pairing: a call without a result gets an error response, a stray result is dropped, a late one moves up", () => {
    const body = wire({
      messages: [
        userText("go"),
        { role: "assistant", content: [call("a", "one"), call("b", "two")] },
        results(["a", "A"], ["zzz", "stray"]),
        userText("and?"),
        results(["b", "late B"]),
      ],
    });
    expect(body.contents.map((c) => c.role)).toEqual(["user", "model", "user", "user"]);
    expect(body.contents[2]!.parts).toEqual([
      { functionResponse: { name: "one", response: { output: "A" } } },
      { functionResponse: { name: "two", response: { output: "late B" } } },
    ]);
    const unanswered = wire({ messages: [userText("go"), { role: "assistant", content: [call("a", "one")] }, userText("never mind")] });
    expect(unanswered.contents[2]!.parts).toEqual([{ functionResponse: { name: "one", response: { error: UNANSWERED_RESULT_TEXT } } }]);
    expect(verdict(body, "gemini-2.5-flash")).toBeUndefined();
    expect(verdict(unanswered, "gemini-2.5-flash")).toBeUndefined();
  });

  it("ids go on the wire only when Gemini gave them (on the call and its response)", () => {
    const body = wire({
      messages: [userText("go"), { role: "assistant", content: [call("fc-1", "one", {}, own({ wireId: "fc-1" })), call("call_made_here", "two")] }, results(["fc-1", "x"], ["call_made_here", "y"])],
    });
    expect(body.contents[1]!.parts.map((p) => p.functionCall)).toEqual([{ id: "fc-1", name: "one", args: {} }, { name: "two", args: {} }]);
    expect(body.contents[2]!.parts.map((p) => p.functionResponse?.id)).toEqual(["fc-1", undefined]);
  });
});

describe("thought signatures and provider data", () => {
  const history = (signature?: string): Message[] => [
    userText("first question"),
    { role: "assistant", content: [call("old", "lookup", {}, signature ? own({ thoughtSignature: signature }) : undefined)] },
    results(["old", "r0"]),
    { role: "assistant", content: [{ type: "text", text: "Done." }] },
    userText("second question"),
    { role: "assistant", content: [{ type: "reasoning", text: "thinking elsewhere", providerData: { origin: "claude", data: { signature: "anthropic-sig" } } }, call("toolu_1", "lookup"), call("toolu_2", "lookup")] },
    results(["toolu_1", "r1"], ["toolu_2", "r2"]),
    { role: "assistant", content: [call("toolu_3", "lookup")] },
    results(["toolu_3", "r3"]),
  ];

  it("Gemini 3: the first call of each step of the current turn gets the documented placeholder; earlier turns stay as they are", () => {
    const body = wire({ messages: history() });
    const models = body.contents.filter((c) => c.role === "model");
    // The earlier turn's call had no signature: not validated there, left alone.
    expect(models[0]!.parts[0]!.thoughtSignature).toBeUndefined();
    // Another provider's reasoning is left out; the placeholder goes on the first call of each step only.
    expect(models[2]!.parts).toEqual([{ functionCall: { name: "lookup", args: {} }, thoughtSignature: FOREIGN_CALL_SIGNATURE }, { functionCall: { name: "lookup", args: {} } }]);
    expect(models[3]!.parts).toEqual([{ functionCall: { name: "lookup", args: {} }, thoughtSignature: FOREIGN_CALL_SIGNATURE }]);
    expect(verdict(body)).toBeUndefined();
    // Without the placeholder, Gemini 3 refuses the current turn.
    const stripped = structuredClone(body);
    for (const content of stripped.contents) for (const part of content.parts) delete part.thoughtSignature;
    expect(verdict(stripped)?.message).toMatch(/^Function call is missing a thought_signature in functionCall parts\./);
  });

  it("Gemini 2.5 does not validate them: no placeholder", () => {
    const body = toWireRequest({ model: "gemini-2.5-flash", messages: history() }, { origin: PROVIDER });
    expect(body.contents.flatMap((c) => c.parts).some((p) => p.thoughtSignature !== undefined)).toBe(false);
  });

  it("the provider's own text, thoughts and other parts go back as they came; another provider's never", () => {
    const opaque = { executableCode: { language: "PYTHON", code: "print(1)" } };
    const assistant: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "reasoning", text: "**Plan**", providerData: own({}) },
        { type: "reasoning", text: "signed thought", providerData: own({ thoughtSignature: "T1" }) },
        { type: "opaque", providerData: own({ part: opaque }) },
        { type: "opaque", providerData: { origin: "other", data: { part: { text: "not ours" } } } },
        { type: "text", text: "", providerData: own({ thoughtSignature: "S-empty" }) },
        { type: "text", text: "Answer", providerData: own({ thoughtSignature: "S1" }) },
        { type: "text", text: "plain" },
        { type: "reasoning", text: "foreign", providerData: { origin: "other-gemini", data: { thoughtSignature: "X" } } },
        { type: "text", text: "foreign-signed", providerData: { origin: "other-gemini", data: { thoughtSignature: "X" } } },
      ],
    };
    const body = wire({ messages: [userText("q"), assistant, userText("next")] });
    expect(body.contents[1]!.parts).toEqual([
      { text: "**Plan**", thought: true },
      { text: "signed thought", thought: true, thoughtSignature: "T1" },
      opaque,
      { text: "", thoughtSignature: "S-empty" },
      { text: "Answer", thoughtSignature: "S1" },
      { text: "plain" },
      { text: "foreign-signed" },
    ]);
  });
});

describe("tools and tool choice", () => {
  const tools = [
    { name: "get_weather", description: "Weather", inputSchema: { type: "object", additionalProperties: false, properties: { city: { type: ["string", "null"], format: "uri" }, units: { enum: [1, 2] } }, required: ["city"], $schema: "http://json-schema.org/draft-07/schema#" } },
    { name: "ping", inputSchema: { type: "object", properties: {} } },
    { name: "later", inputSchema: { type: "object" }, deferred: true },
  ];

  it("function declarations in Gemini's schema dialect; a function without parameters leaves them out; deferred tools are not offered", () => {
    const body = wire({ messages: [userText("hi")], tools });
    const declarations = body.tools![0]!.functionDeclarations;
    expect(declarations.map((d) => d.name)).toEqual(["get_weather", "ping"]);
    expect(declarations[1]).toEqual({ name: "ping" });
    expect(geminiSchemaErrors(declarations[0]!.parameters)).toEqual([]);
    expect(JSON.stringify(declarations[0])).not.toMatch(/additionalProperties|\$schema/);
    expect(verdict(body)).toBeUndefined();
    // As the client wrote it, Gemini would refuse it.
    expect(verdict({ ...body, tools: [{ functionDeclarations: [{ name: "get_weather", parameters: tools[0]!.inputSchema }] }] })?.message).toBe(
      `Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
    );
  });

  it.each([
    [{ type: "auto" }, { mode: "AUTO" }],
    [{ type: "none" }, { mode: "NONE" }],
    [{ type: "required" }, { mode: "ANY" }],
    [{ type: "tool", name: "ping" }, { mode: "ANY", allowedFunctionNames: ["ping"] }],
  ] as const)("tool choice %j is functionCallingConfig %j", (toolChoice, config) => {
    expect(wire({ messages: [userText("hi")], tools, toolChoice }).toolConfig).toEqual({ functionCallingConfig: config });
  });

  it("no tools, no tool config", () => {
    expect(wire({ messages: [userText("hi")], toolChoice: { type: "required" } })).toEqual({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
  });
});

describe("generation config", () => {
  it("sampling, limit, stop sequences, seed; JSON output", () => {
    const body = wire({ messages: [userText("hi")], temperature: 0.3, topP: 0.9, maxTokens: 100, stop: ["END"], seed: 7, responseFormat: { type: "json_schema", name: "out", schema: { type: "object", properties: { a: { type: "integer" } }, additionalProperties: false } } });
    expect(body.generationConfig).toEqual({
      temperature: 0.3,
      topP: 0.9,
      maxOutputTokens: 100,
      stopSequences: ["END"],
      seed: 7,
      responseMimeType: "application/json",
      responseSchema: { type: "object", properties: { a: { type: "integer" } } },
    });
    expect(wire({ messages: [userText("hi")], responseFormat: { type: "json_object" } }).generationConfig).toEqual({ responseMimeType: "application/json" });
    expect(wire({ messages: [userText("hi")], responseFormat: { type: "json_schema", name: "list", schema: { type: "array", items: { type: "string" } } } }).generationConfig).toEqual({
      responseMimeType: "application/json",
      responseJsonSchema: { type: "array", items: { type: "string" } },
    });
    expect(verdict(body)).toBeUndefined();
  });

  it.each([
    ["gemini-3-pro-preview", { effort: "low" }, { thinkingLevel: "LOW", includeThoughts: true }],
    ["gemini-3-pro-preview", { effort: "medium" }, { thinkingLevel: "HIGH", includeThoughts: true }],
    ["gemini-3-pro-preview", { effort: "none" }, { thinkingLevel: "LOW" }],
    ["gemini-3-flash-preview", { effort: "minimal" }, { thinkingLevel: "MINIMAL", includeThoughts: true }],
    ["gemini-3-flash-preview", { effort: "medium" }, { thinkingLevel: "MEDIUM", includeThoughts: true }],
    ["gemini-3.1-pro-preview", { budgetTokens: 4000, translated: true }, { thinkingLevel: "MEDIUM", includeThoughts: true }],
    ["gemini-2.5-pro", { effort: "none" }, { thinkingBudget: 128 }],
    ["gemini-2.5-pro", { effort: "high" }, { thinkingBudget: 24576, includeThoughts: true }],
    ["gemini-2.5-flash", { effort: "none" }, { thinkingBudget: 0 }],
    ["gemini-2.5-flash", { budgetTokens: 100000 }, { thinkingBudget: 24576, includeThoughts: true }],
    ["gemini-2.5-flash-lite", { effort: "minimal" }, { thinkingBudget: 512, includeThoughts: true }],
    ["gemini-2.0-flash", { effort: "high" }, undefined],
    ["gemma-3-27b-it", { effort: "high" }, undefined],
    ["gemini-flash-latest", { effort: "low" }, { thinkingBudget: 1024, includeThoughts: true }],
    ["gemini-flash-latest", { effort: "low", translated: true }, undefined],
  ] as const)("%s with %j: thinkingConfig %j", (model, reasoning, expected) => {
    const body = toWireRequest({ model, messages: [userText("hi")], reasoning }, { origin: PROVIDER });
    expect(body.generationConfig?.thinkingConfig).toEqual(expected);
    expect(verdict(body, model)).toBeUndefined();
  });

  it("an explicit budget above the output limit is added to it; the provider's maxTokens is the default limit", () => {
    expect(toWireRequest({ model: "gemini-2.5-flash", messages: [userText("hi")], maxTokens: 1000, reasoning: { budgetTokens: 4096 } }, { origin: PROVIDER }).generationConfig?.maxOutputTokens).toBe(5096);
    expect(toWireRequest({ model: "gemini-2.5-flash", messages: [userText("hi")] }, { origin: PROVIDER, defaultMaxTokens: 2048 }).generationConfig).toEqual({ maxOutputTokens: 2048 });
  });

  it("`extra` is merged last, its generationConfig into ours", () => {
    const body = wire({ messages: [userText("hi")], temperature: 0.2, extra: { generationConfig: { topK: 40 }, safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }] } });
    expect(body.generationConfig).toEqual({ temperature: 0.2, topK: 40 });
    expect(body.safetySettings).toHaveLength(1);
  });
});

describe("through the adapter", () => {
  let server: FakeUpstream | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("function names Gemini refuses are renamed for the request and come back as the client wrote them", async () => {
    const rejections: GeminiRejection[] = [];
    server = await startFakeUpstream(
      geminiHandler((req, res) => {
        const name = req.body.tools[0].functionDeclarations[0].name;
        sendJson(res, 200, { candidates: [{ content: { role: "model", parts: [{ functionCall: { name, args: { q: "x" } } }] }, finishReason: "STOP" }] });
      }, {}, rejections),
    );
    const result = await adapterAt(server.url).complete({ model: "gemini-2.5-flash", messages: [userText("search")], tools: [{ name: "github/search", inputSchema: { type: "object", properties: { q: { type: "string" } } } }] });
    expect(rejections).toEqual([]);
    expect(server.requests[0]!.body.tools[0].functionDeclarations[0].name).toBe("github_search");
    expect(result.message.content).toEqual([expect.objectContaining({ type: "tool_call", name: "github/search", arguments: { q: "x" } })]);
  });
});
