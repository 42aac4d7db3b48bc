/**
 * A client tool call whose arguments the model wrote as broken JSON (`{'city':'Rome',}`, split
 * over deltas): streamed and not, the client gets the same repaired arguments. Real clients: the
 * `openai` client, and the AI SDK's streamText, which refuses to run a tool whose streamed input
 * does not parse.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

const BROKEN = ["{'city':", "'Rome',}"];
const REPAIRED = { city: "Rome" };

let upstream: FakeUpstream;
let gw: RunningGateway;

/** An OpenAI-protocol model that calls get_weather with broken arguments, then answers once it has the result. */
function answer(body: { stream?: boolean; messages: { role: string }[] }) {
  const answered = body.messages.some((m) => m.role === "tool");
  const base = { id: "chatcmpl-1", created: 1, model: "m" };
  if (!body.stream) {
    const message = answered
      ? { role: "assistant", content: "It is sunny in Rome." }
      : { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: BROKEN.join("") } }] };
    return { json: { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: answered ? "stop" : "tool_calls" }] } };
  }
  const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const events = answered
    ? [chunk({ role: "assistant", content: "It is sunny in Rome." }), chunk({}, "stop")]
    : [
        chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "get_weather", arguments: "" } }] }),
        ...BROKEN.map((part) => chunk({ tool_calls: [{ index: 0, function: { arguments: part } }] })),
        chunk({}, "tool_calls"),
      ];
  return { sse: `${events.join("")}data: [DONE]\n\n` };
}

beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => {
    const reply = answer(req.body);
    if (reply.sse) sendSse(res, reply.sse);
    else sendJson(res, 200, reply.json);
  });
  gw = await startGateway({ mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } } });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

const weather: OpenAI.ChatCompletionTool = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } };
const ask = { model: "fake/m", messages: [{ role: "user" as const, content: "Weather in Rome?" }], tools: [weather] };

describe("broken tool-call arguments of a client tool", () => {
  it("streamed and non-streamed, the openai client gets the same repaired arguments", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const plain = await client.chat.completions.create(ask);
    const streamed = await client.chat.completions.stream(ask).finalChatCompletion();
    const plainArgs = (plain.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments;
    const streamedArgs = (streamed.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.arguments;
    expect(JSON.parse(plainArgs)).toEqual(REPAIRED);
    expect(streamedArgs).toBe(plainArgs);
  });

  it("the AI SDK's streamText runs the tool with the repaired input", async () => {
    const provider = createOpenAICompatible({ name: "gateway", baseURL: `${gw.url}/v1`, apiKey: "unused" });
    const inputs: unknown[] = [];
    const result = streamText({
      model: provider("fake/m"),
      prompt: "Weather in Rome?",
      tools: {
        get_weather: tool({
          inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
          execute: async (input) => {
            inputs.push(input);
            return "sunny";
          },
        }),
      },
      stopWhen: stepCountIs(2),
    });
    expect(await result.text).toBe("It is sunny in Rome.");
    expect(inputs).toEqual([REPAIRED]);
  });
});
