/**
 * Every quirk preset end to end: the real `openai` client -> the gateway -> that provider's
 * strict fake (which refuses what the real provider refuses, with its real error). The model
 * calls two client tools in parallel; the client runs them and sends back ONLY the standard
 * fields (no reasoning_content, no provider extras), as most OpenAI clients do. The gateway must
 * restore what the provider needs (reasoning, thought signatures, raw think content, its id
 * mapping) so the provider accepts the follow-up and answers.
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { PRESET_NAMES } from "../../src/adapters/quirks/index.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { FINAL_ANSWER, TIME_ARGS, WEATHER_ARGS } from "../helpers/strict-fakes/conversation.ts";
import { DEEPSEEK_REASONING } from "../helpers/strict-fakes/deepseek.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

const tools: OpenAI.ChatCompletionTool[] = [
  { type: "function", function: { name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
  { type: "function", function: { name: "get_time", description: "Local time", parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } } },
];
const results: Record<string, string> = { get_weather: "18°C, sunny", get_time: "14:05" };
const opening: OpenAI.ChatCompletionMessageParam[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is the weather and the time in Paris?" },
];

let fake: StrictFake | undefined;
let gw: RunningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await fake?.close();
  gw = undefined;
  fake = undefined;
});
afterAll(async () => gw?.close());

async function setUp(preset: string): Promise<OpenAI> {
  fake = await startStrictFake(FAMILIES[preset]!());
  gw = await startGateway({ mcpServers: {}, providers: { p: { type: "openai", baseURL: fake.url, apiKey: "k", quirks: preset } }, gateway: { retries: { attempts: 1 } } });
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
}

type Call = { id: string; function: { name: string; arguments: string } };

async function firstTurn(client: OpenAI, stream: boolean): Promise<{ content: string | null; calls: Call[] }> {
  const params = { model: "p/model-x", messages: opening, tools, parallel_tool_calls: true };
  if (!stream) {
    const completion = await client.chat.completions.create(params);
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    return { content: completion.choices[0]!.message.content, calls: completion.choices[0]!.message.tool_calls as Call[] };
  }
  const final = await client.chat.completions.stream(params).finalChatCompletion();
  expect(final.choices[0]!.finish_reason).toBe("tool_calls");
  return { content: final.choices[0]!.message.content, calls: final.choices[0]!.message.tool_calls as Call[] };
}

/** The follow-up a minimal client sends: standard fields only. */
function followUp(first: { content: string | null; calls: Call[] }): OpenAI.ChatCompletionMessageParam[] {
  return [
    ...opening,
    { role: "assistant", content: first.content, tool_calls: first.calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function.name, arguments: c.function.arguments } })) },
    ...first.calls.map((c) => ({ role: "tool" as const, tool_call_id: c.id, content: results[c.function.name]! })),
  ];
}

describe.each(PRESET_NAMES)("preset %s through the gateway", (preset) => {
  it.each([false, true])("a parallel client-tool round trip with a standard-fields client (stream: %s)", async (stream) => {
    const client = await setUp(preset);
    const first = await firstTurn(client, stream);
    expect(first.calls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([
      ["get_weather", WEATHER_ARGS],
      ["get_time", TIME_ARGS],
    ]);
    const second = await client.chat.completions.create({ model: "p/model-x", messages: followUp(first), tools });
    expect(fake!.rejections).toEqual([]);
    expect(second.choices[0]!.message.content).toBe(FINAL_ANSWER);
    const sent = fake!.requests.at(-1)!.body;
    if (preset === "deepseek") expect(sent.messages.find((m: { role: string }) => m.role === "assistant").reasoning_content).toBe(DEEPSEEK_REASONING);
    if (preset === "gemini") expect(sent.messages.find((m: { tool_calls?: unknown }) => m.tool_calls).tool_calls[0].extra_content?.google?.thought_signature).toBeTruthy();
    if (preset === "minimax") expect(String(sent.messages.find((m: { role: string }) => m.role === "assistant").content)).toContain("<think>");
  });
});

describe("Anthropic thinking through a standard-fields client", () => {
  it("restores the thinking block with its signature, so thinking stays on mid tool loop", async () => {
    const { startFakeAnthropic, replyWith } = await import("../helpers/anthropic-rules.ts");
    const signature = "EqQBCkYIBRgCKkB-real-looking-signature";
    const turns = [
      {
        id: "msg_1", type: "message", role: "assistant", model: "claude-x", stop_reason: "tool_use", stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 20 },
        content: [
          { type: "thinking", thinking: "The user wants the weather; I will call the tool.", signature },
          { type: "tool_use", id: "toolu_01A", name: "get_weather", input: WEATHER_ARGS },
        ],
      },
      { id: "msg_2", type: "message", role: "assistant", model: "claude-x", stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 30, output_tokens: 5 }, content: [{ type: "text", text: "Sunny." }] },
    ];
    let n = 0;
    const anthropic = await startFakeAnthropic((req, res) => replyWith(turns[Math.min(n++, 1)]!)(req, res), { knownSignatures: new Set([signature]) });
    const local = await startGateway({ mcpServers: {}, providers: { claude: { type: "anthropic", baseURL: anthropic.url, apiKey: "k" } }, gateway: { retries: { attempts: 1 } } });
    try {
      const client = new OpenAI({ baseURL: `${local.url}/v1`, apiKey: "unused", maxRetries: 0 });
      const base = { model: "claude/claude-x", tools: [tools[0]!], reasoning_effort: "low" as const };
      const first = await client.chat.completions.create({ ...base, messages: opening });
      const message = first.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
      expect(message.reasoning_content).toBe("The user wants the weather; I will call the tool.");
      const second = await client.chat.completions.create({
        ...base,
        messages: [
          ...opening,
          { role: "assistant", content: message.content, tool_calls: message.tool_calls!.map((c) => ({ id: c.id, type: "function" as const, function: { name: (c as Call).function.name, arguments: (c as Call).function.arguments } })) },
          { role: "tool", tool_call_id: message.tool_calls![0]!.id, content: "18°C, sunny" },
        ],
      });
      expect(second.choices[0]!.message.content).toBe("Sunny.");
      const sent = anthropic.requests[1]!.body;
      expect(sent.thinking).toMatchObject({ type: "enabled" });
      expect(sent.messages[1].content[0]).toEqual({ type: "thinking", thinking: "The user wants the weather; I will call the tool.", signature });
    } finally {
      await local.close();
      await anthropic.close();
    }
  });
});
