/**
 * Histories a truncating client produces, end to end: the real `openai` client -> the gateway ->
 * a strict fake of each provider family that refuses broken tool pairing (with the provider's
 * own error). The gateway must repair the pairing (src/adapters/tool-pairing.ts) so the provider
 * accepts the request and answers. A control sends the very same body straight to the fake and
 * gets the provider's 400, proving the fake really enforces the rule the gateway repairs.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { UNANSWERED_RESULT_TEXT } from "../../src/adapters/tool-pairing.ts";
import { BRIDGE_TEXT } from "../../src/adapters/quirks/request/bridge.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { FINAL_ANSWER, type Body } from "../helpers/strict-fakes/conversation.ts";
import { GLM_ILLEGAL_MESSAGES } from "../helpers/strict-fakes/glm.ts";
import { MISTRAL_TOOL_AFTER_USER } from "../helpers/strict-fakes/mistral.ts";
import { orphanToolMessage, unansweredCalls } from "../helpers/strict-fakes/pairing.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

const tools: OpenAI.ChatCompletionTool[] = [
  { type: "function", function: { name: "get_weather", description: "Current weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
  { type: "function", function: { name: "get_time", description: "Local time", parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } } },
];

const OPENAI_UNANSWERED = (ids: string) =>
  `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${ids}`;
const OPENAI_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
const DEEPSEEK_INSUFFICIENT =
  "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)";
const MISTRAL_COUNTS = "Not the same number of function calls and responses";
const MINIMAX_PAIRING = "invalid params, tool call result does not follow tool call (2013)";

type CaseName = "unanswered" | "orphan" | "late";

interface Ids {
  /** The weather call and the time call of the turn that survived truncation. */
  weather: string;
  time: string;
  /** The call of an earlier turn that truncation cut off. */
  gone: string;
}

interface Family {
  preset: string;
  /** The model id the provider gets (DeepSeek's non-thinking model: a hand-made history has no reasoning to replay). */
  model: string;
  /** Call ids in the provider's own style (Mistral's are 9 letters/digits, else it refuses them first). */
  ids: Ids;
  /** The provider's error for the malformed body, per case; undefined where that provider accepts it. */
  refusal: (ids: Ids) => Record<CaseName, string | undefined>;
}

const FAMILY_LIST: Family[] = [
  {
    preset: "openai",
    model: "gpt-4o",
    ids: { weather: "call_Yq3kZpW9xL2mB7vR0001", time: "call_Yq3kZpW9xL2mB7vR0002", gone: "call_Yq3kZpW9xL2mB7vR0000" },
    refusal: (ids) => ({ unanswered: OPENAI_UNANSWERED(ids.time), orphan: OPENAI_ORPHAN, late: OPENAI_UNANSWERED(ids.weather) }),
  },
  {
    preset: "mistral",
    model: "mistral-large-latest",
    ids: { weather: "D681PevK1", time: "D681PevK2", gone: "D681PevK0" },
    refusal: () => ({ unanswered: MISTRAL_COUNTS, orphan: MISTRAL_TOOL_AFTER_USER, late: MISTRAL_TOOL_AFTER_USER }),
  },
  {
    preset: "deepseek",
    model: "deepseek-chat",
    ids: { weather: "call_01_a8f5c1d2e3b4f5a6b7c8d9e0", time: "call_02_a8f5c1d2e3b4f5a6b7c8d9e0", gone: "call_00_a8f5c1d2e3b4f5a6b7c8d9e0" },
    // DeepSeek does not check for results without a call.
    refusal: () => ({ unanswered: DEEPSEEK_INSUFFICIENT, orphan: undefined, late: DEEPSEEK_INSUFFICIENT }),
  },
  {
    preset: "zhipu",
    model: "glm-4.6",
    ids: { weather: "call_-8951800013462791", time: "call_-8951800023462791", gone: "call_-8951800003462791" },
    refusal: () => ({ unanswered: GLM_ILLEGAL_MESSAGES, orphan: GLM_ILLEGAL_MESSAGES, late: GLM_ILLEGAL_MESSAGES }),
  },
  {
    preset: "minimax",
    model: "MiniMax-M2",
    ids: { weather: "call_function_1x7k2m9p4q1", time: "call_function_2x7k2m9p4q1", gone: "call_function_0x7k2m9p4q1" },
    // MiniMax does not check for results without a call.
    refusal: () => ({ unanswered: MINIMAX_PAIRING, orphan: undefined, late: MINIMAX_PAIRING }),
  },
];

type Param = OpenAI.ChatCompletionMessageParam;

const SYSTEM: Param = { role: "system", content: "You are a helpful assistant." };
const ASK: Param = { role: "user", content: "What is the weather and the time in Paris?" };
const calling = (...calls: { id: string; name: string; args: object }[]): Param => ({
  role: "assistant",
  // Text next to the calls: GLM refuses null content outright, which would hide its pairing check in the control.
  content: "Let me look that up.",
  tool_calls: calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.args) } })),
});
const answering = (id: string, content: string): Param => ({ role: "tool", tool_call_id: id, content });
const weatherCall = (ids: Ids) => ({ id: ids.weather, name: "get_weather", args: { city: "Paris" } });
const timeCall = (ids: Ids) => ({ id: ids.time, name: "get_time", args: { zone: "Europe/Paris" } });

interface Case {
  name: CaseName;
  title: string;
  /** What the client sends. */
  history(ids: Ids): Param[];
  /** What the provider must get instead (bridge turns Mistral needs left out), one line per message. */
  repaired(ids: Ids): string[];
}

const CASES: Case[] = [
  {
    name: "unanswered",
    title: "an assistant message with two tool_calls answered by one tool message",
    history: (ids) => [SYSTEM, ASK, calling(weatherCall(ids), timeCall(ids)), answering(ids.weather, "18°C, sunny")],
    repaired: (ids) => ["system", "user", `assistant [${ids.weather},${ids.time}]`, `tool ${ids.weather}: 18°C, sunny`, `tool ${ids.time}: ${UNANSWERED_RESULT_TEXT}`],
  },
  {
    name: "orphan",
    title: "a tool message whose call was cut off by truncation, right after a user message",
    history: (ids) => [
      SYSTEM,
      { role: "user", content: "What was the weather in Lyon this morning?" },
      answering(ids.gone, "12°C, rain"),
      { role: "assistant", content: "It was 12°C and raining in Lyon." },
      ASK,
      calling(weatherCall(ids), timeCall(ids)),
      answering(ids.weather, "18°C, sunny"),
      answering(ids.time, "14:05"),
    ],
    repaired: (ids) => ["system", "user", "assistant", "user", `assistant [${ids.weather},${ids.time}]`, `tool ${ids.weather}: 18°C, sunny`, `tool ${ids.time}: 14:05`],
  },
  {
    name: "late",
    title: "a tool message after a user message instead of right after its assistant",
    history: (ids) => [
      SYSTEM,
      ASK,
      calling(weatherCall(ids)),
      { role: "user", content: "And the local time too, please." },
      answering(ids.weather, "18°C, sunny"),
      calling(timeCall(ids)),
      answering(ids.time, "14:05"),
    ],
    repaired: (ids) => ["system", "user", `assistant [${ids.weather}]`, `tool ${ids.weather}: 18°C, sunny`, "user", `assistant [${ids.time}]`, `tool ${ids.time}: 14:05`],
  },
];

/** One line per message; Mistral's bridge turns (an assistant message between tool and user) left out. */
function outline(messages: Body[]): string[] {
  return messages
    .filter((m) => !(m.role === "assistant" && m.content === BRIDGE_TEXT && !m.tool_calls))
    .map((m) => {
      if (m.role === "tool") return `tool ${m.tool_call_id}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`;
      if (m.role === "assistant" && m.tool_calls?.length) return `assistant [${m.tool_calls.map((c: Body) => c.id).join(",")}]`;
      return m.role;
    });
}

let fake: StrictFake | undefined;
let gw: RunningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await fake?.close();
  gw = undefined;
  fake = undefined;
});

async function setUp(preset: string): Promise<{ client: OpenAI; fake: StrictFake }> {
  const started = await startStrictFake(FAMILIES[preset]!());
  fake = started;
  gw = await startGateway({ mcpServers: {}, providers: { p: { type: "openai", baseURL: started.url, apiKey: "k", quirks: preset } }, gateway: { retries: { attempts: 1 } } });
  return { client: new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 }), fake: started };
}

/** Through the gateway: the HTTP status and the answer text, streamed or not. */
async function ask(client: OpenAI, model: string, messages: Param[], stream: boolean): Promise<{ status: number; content: string; finish: string | null | undefined }> {
  if (!stream) {
    const { data, response } = await client.chat.completions.create({ model: `p/${model}`, messages, tools }).withResponse();
    return { status: response.status, content: data.choices[0]!.message.content ?? "", finish: data.choices[0]!.finish_reason };
  }
  const { data, response } = await client.chat.completions.create({ model: `p/${model}`, messages, tools, stream: true }).withResponse();
  let content = "";
  let finish: string | null | undefined;
  for await (const chunk of data) {
    const choice = chunk.choices[0];
    content += choice?.delta.content ?? "";
    finish = choice?.finish_reason ?? finish;
  }
  return { status: response.status, content, finish };
}

/** The control: the same body, straight to the fake, as a client without the gateway would send it. */
async function direct(fake: StrictFake, model: string, messages: Param[], stream: boolean): Promise<{ status: number; message: unknown }> {
  const response = await fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer k" },
    body: JSON.stringify({ model, messages, tools, ...(stream ? { stream: true } : {}) }),
  });
  const json = (await response.json()) as Body;
  // OpenAI-style `{ error: { message } }`; Mistral puts the error object at the top level.
  return { status: response.status, message: json.error?.message ?? json.message };
}

describe.each(FAMILY_LIST)("preset $preset: truncated histories are repaired", (family) => {
  const refusals = family.refusal(family.ids);

  describe.each(CASES)("$title", (testCase) => {
    it.each([false, true])("answers (stream: %s)", async (stream) => {
      const { client, fake } = await setUp(family.preset);
      const messages = testCase.history(family.ids);

      const reply = await ask(client, family.model, messages, stream);
      expect(fake.rejections).toEqual([]);
      expect(reply).toEqual({ status: 200, content: FINAL_ANSWER, finish: "stop" });

      expect(fake.requests).toHaveLength(1);
      const sent = fake.requests[0]!.body as Body;
      expect(sent.stream === true).toBe(stream);
      expect(unansweredCalls(sent)).toBeUndefined();
      expect(orphanToolMessage(sent)).toBeUndefined();
      expect(outline(sent.messages)).toEqual(testCase.repaired(family.ids));

      const refusal = refusals[testCase.name];
      if (refusal === undefined) return; // this provider accepts the malformed body as is
      const control = await direct(fake, family.model, messages, stream);
      expect(control).toEqual({ status: 400, message: refusal });
      expect(fake.rejections.map((r) => r.message)).toEqual([refusal]);
    });
  });
});

describe("the placeholder result on the wire", () => {
  it("carries the missing call's id, right after the real result, and the model's answer comes back", async () => {
    const { client, fake } = await setUp("openai");
    const ids = FAMILY_LIST[0]!.ids;
    const completion = await client.chat.completions.create({
      model: "p/gpt-4o",
      tools,
      messages: [SYSTEM, ASK, calling(weatherCall(ids), timeCall(ids)), answering(ids.weather, "18°C, sunny")],
    });
    expect(completion.choices[0]!.message.content).toBe(FINAL_ANSWER);
    const sent = fake.requests[0]!.body as Body;
    expect(sent.messages.slice(2)).toEqual([
      expect.objectContaining({ role: "assistant", tool_calls: [expect.objectContaining({ id: ids.weather }), expect.objectContaining({ id: ids.time })] }),
      { role: "tool", tool_call_id: ids.weather, content: "18°C, sunny" },
      { role: "tool", tool_call_id: ids.time, content: UNANSWERED_RESULT_TEXT },
    ]);
  });
});
