/**
 * Gemini through its own API (`type: "gemini"`) from every front door. The strict Gemini fake
 * refuses what Gemini refuses (a function call of the current turn without its thought signature,
 * `id` in a function call, a function response that does not follow its call, unknown schema
 * fields) and plays a multi-turn conversation: two parallel calls (the signature on the first
 * only, no ids), then a sequential call, then the answer. Each client sends back only what its own
 * protocol defines (the openai client's standard message fields, the Anthropic SDK's content
 * blocks, the Responses API's output items): the gateway must restore every signature where it
 * came from, so the fake sees its own signatures — never the placeholder — on every step.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { DOCUMENTED_SKIP, FINAL_ANSWER, SECOND_STEP_ARGS, startGeminiFake, TIME_ARGS, WEATHER_ARGS, type GeminiFake } from "../helpers/gemini-native-fake.ts";

let fake: GeminiFake | undefined;
let gw: RunningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await fake?.close();
  gw = undefined;
  fake = undefined;
});

const MODEL = "g/gemini-3-pro-preview";
const results: Record<string, (args: string) => string> = { get_weather: (args) => `18°C, sunny (${args})`, get_time: () => "14:05" };

async function setUp(options: Parameters<typeof startGeminiFake>[0] = {}): Promise<string> {
  fake = await startGeminiFake(options);
  gw = await startGateway({ mcpServers: {}, providers: { g: { type: "gemini", baseURL: fake.url, apiKey: "k" } }, gateway: { retries: { attempts: 1 } } });
  return gw.url;
}

/** Every step of the last request carries a signature the fake issued on its first call (none is a placeholder). */
function expectOwnSignatures(): void {
  const contents = fake!.chatRequests().at(-1)!.body.contents as { role: string; parts: { functionCall?: unknown; thoughtSignature?: string }[] }[];
  const steps = contents.filter((content) => content.role === "model" && content.parts.some((part) => part.functionCall));
  expect(steps).toHaveLength(2);
  for (const step of steps) {
    const first = step.parts.find((part) => part.functionCall)!;
    expect(first.thoughtSignature).not.toBe(DOCUMENTED_SKIP);
    expect(fake!.issued.has(first.thoughtSignature!)).toBe(true);
  }
  // No ids on the wire (Gemini gave none).
  expect(JSON.stringify(contents)).not.toMatch(/"id":/);
}

function expectScriptedCalls(calls: [string, unknown][][]): void {
  expect(calls).toEqual([
    [
      ["get_weather", WEATHER_ARGS],
      ["get_time", TIME_ARGS],
    ],
    [["get_weather", SECOND_STEP_ARGS]],
  ]);
}

describe("Gemini behind the Chat Completions door (openai client, standard fields only)", () => {
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: "function", function: { name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } } },
    { type: "function", function: { name: "get_time", description: "Local time", parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } } },
  ];

  it.each([false, true])("a parallel then sequential client-tool loop, with reasoning (stream: %s)", async (stream) => {
    const client = new OpenAI({ baseURL: `${await setUp()}/v1`, apiKey: "unused", maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "What is the weather and the time in Paris, then in Lyon?" },
    ];
    const calls: [string, unknown][][] = [];
    let answer: string | null = null;
    const reasoning: string[] = [];
    for (let turn = 0; turn < 4 && answer === null; turn++) {
      const params = { model: MODEL, messages, tools, parallel_tool_calls: true, reasoning_effort: "low" as const };
      const completion = stream ? await client.chat.completions.stream(params).finalChatCompletion() : await client.chat.completions.create(params);
      const message = completion.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      if (message.reasoning_content) reasoning.push(message.reasoning_content);
      const toolCalls = (message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
      if (toolCalls.length === 0) {
        answer = message.content;
        break;
      }
      expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
      calls.push(toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)]));
      // The standard fields only: no reasoning_content, no provider extras.
      messages.push({ role: "assistant", content: message.content, tool_calls: toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } })) });
      for (const c of toolCalls) messages.push({ role: "tool", tool_call_id: c.id, content: results[c.function.name]!(c.function.arguments) });
    }
    expect(fake!.rejections).toEqual([]);
    expect(answer).toBe(FINAL_ANSWER);
    expectScriptedCalls(calls);
    expect(reasoning[0]).toContain("Planning step 1");
    expectOwnSignatures();
    // The thought summaries went back where they came from too (restored with the steps).
    const last = fake!.chatRequests().at(-1)!.body;
    expect(last.contents.filter((c: { role: string }) => c.role === "model").map((c: { parts: { thought?: boolean }[] }) => c.parts[0]!.thought)).toEqual([true, true]);
    expect(last.generationConfig.thinkingConfig).toEqual({ thinkingLevel: "LOW", includeThoughts: true });
    // Responses pair with their calls by name, in call order.
    expect(last.contents[2].parts.map((p: { functionResponse: { name: string } }) => p.functionResponse.name)).toEqual(["get_weather", "get_time"]);
    // The client's schema went out in Gemini's dialect (additionalProperties refused by Gemini).
    expect(JSON.stringify(last.tools)).not.toContain("additionalProperties");
  });

  it("a client that drops the history's tool calls entirely still gets an answer (placeholders, no refusal)", async () => {
    const client = new OpenAI({ baseURL: `${await setUp({ rounds: 1 })}/v1`, apiKey: "unused", maxRetries: 0 });
    // A history made elsewhere: calls this gateway never answered (no stored steps, no signatures).
    const completion = await client.chat.completions.create({
      model: MODEL,
      tools,
      messages: [
        { role: "user", content: "weather?" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_elsewhere", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
        { role: "tool", tool_call_id: "call_elsewhere", content: "sunny" },
      ],
    });
    expect(fake!.rejections).toEqual([]);
    expect(completion.choices[0]!.message.content).toBe(FINAL_ANSWER);
    const sent = fake!.chatRequests()[0]!.body.contents;
    expect(sent[1].parts[0].thoughtSignature).toBe(DOCUMENTED_SKIP);
  });
});

describe("Gemini behind the Messages door (@anthropic-ai/sdk)", () => {
  const tools: Anthropic.Tool[] = [
    { name: "get_weather", description: "Current weather", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
    { name: "get_time", description: "Local time", input_schema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } },
  ];

  it.each([false, true])("the same loop with thinking on, the client echoing its content blocks (stream: %s)", async (stream) => {
    const client = new Anthropic({ baseURL: await setUp(), apiKey: "unused", maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "What is the weather and the time in Paris, then in Lyon?" }];
    const calls: [string, unknown][][] = [];
    let answer = "";
    for (let turn = 0; turn < 4; turn++) {
      const params = { model: MODEL, max_tokens: 2048, system: "You are a helpful assistant.", thinking: { type: "enabled" as const, budget_tokens: 1024 }, tools, messages };
      const message = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
      const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      if (uses.length === 0) {
        answer = message.content.filter((b): b is Anthropic.TextBlock => b.type === "text").map((b) => b.text).join("");
        expect(message.stop_reason).toBe("end_turn");
        break;
      }
      expect(message.stop_reason).toBe("tool_use");
      expect(message.content[0]!.type).toBe("thinking");
      calls.push(uses.map((u) => [u.name, u.input]));
      messages.push({ role: "assistant", content: message.content as Anthropic.ContentBlockParam[] });
      messages.push({ role: "user", content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: results[u.name]!(JSON.stringify(u.input)) })) });
    }
    expect(fake!.rejections).toEqual([]);
    expect(answer).toBe(FINAL_ANSWER);
    expectScriptedCalls(calls);
    expectOwnSignatures();
    // Claude Code's thinking switch, translated: Gemini 3 knows how to think, so it is asked to.
    expect(fake!.chatRequests().at(-1)!.body.generationConfig.thinkingConfig).toMatchObject({ includeThoughts: true });
  });
});

describe("Gemini behind the Responses door (openai client's responses API)", () => {
  const tools: OpenAI.Responses.FunctionTool[] = [
    { type: "function", name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false },
    { type: "function", name: "get_time", description: "Local time", parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] }, strict: false },
  ];

  it.each([false, true])("store: false, the client echoing the output items (stream: %s)", async (stream) => {
    const client = new OpenAI({ baseURL: `${await setUp()}/v1`, apiKey: "unused", maxRetries: 0 });
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "What is the weather and the time in Paris, then in Lyon?" }];
    const calls: [string, unknown][][] = [];
    let answer = "";
    for (let turn = 0; turn < 4; turn++) {
      const params = { model: MODEL, instructions: "You are a helpful assistant.", input, tools, store: false, reasoning: { effort: "low" as const } };
      const response: OpenAI.Responses.Response = stream ? await client.responses.stream(params).finalResponse() : await client.responses.create(params);
      const functionCalls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
      if (functionCalls.length === 0) {
        answer = response.output_text;
        break;
      }
      calls.push(functionCalls.map((c) => [c.name, JSON.parse(c.arguments)]));
      input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
      for (const c of functionCalls) input.push({ type: "function_call_output", call_id: c.call_id, output: results[c.name]!(c.arguments) });
    }
    expect(fake!.rejections).toEqual([]);
    expect(answer).toBe(FINAL_ANSWER);
    expectScriptedCalls(calls);
    expectOwnSignatures();
  });

  it("stored responses: each turn continues with previous_response_id", async () => {
    const client = new OpenAI({ baseURL: `${await setUp()}/v1`, apiKey: "unused", maxRetries: 0 });
    let previous: string | undefined;
    let input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "What is the weather and the time in Paris, then in Lyon?" }];
    const calls: [string, unknown][][] = [];
    let answer = "";
    for (let turn = 0; turn < 4; turn++) {
      const response = await client.responses.create({ model: MODEL, input, tools, ...(previous ? { previous_response_id: previous } : {}) });
      previous = response.id;
      const functionCalls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
      if (functionCalls.length === 0) {
        answer = response.output_text;
        break;
      }
      calls.push(functionCalls.map((c) => [c.name, JSON.parse(c.arguments)]));
      input = functionCalls.map((c) => ({ type: "function_call_output" as const, call_id: c.call_id, output: results[c.name]!(c.arguments) }));
    }
    expect(fake!.rejections).toEqual([]);
    expect(answer).toBe(FINAL_ANSWER);
    expectScriptedCalls(calls);
    expectOwnSignatures();
  });
});
