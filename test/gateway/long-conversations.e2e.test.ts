/**
 * Long conversations end to end: the real `openai` client holds a 300-turn conversation whose
 * every turn has a large result of its own tool, through the gateway, against a strict fake
 * OpenAI whose context window is small (it counts with a real BPE and refuses with OpenAI's own
 * context-length error, refuses orphaned tool messages and unanswered calls as OpenAI does, and
 * here also a request without the system prompt). Compaction must keep every request under the
 * window, whole, and the client answered throughout — by trimming, and by summaries written by
 * the configured summarizer model, with Latin and with CJK text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { sendJson, startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../helpers/fake-upstream.ts";
import { withContextLimit, promptTokens, type LimitLog } from "../helpers/context-limit.ts";
import { openaiFamily } from "../helpers/strict-fakes/openai.ts";
import { firstRejection, openAiError } from "../helpers/strict-fakes/strict-fake.ts";
import { renderCompletion } from "../helpers/strict-fakes/render.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

const WINDOW = 6_000;
const SYSTEM = "You are the log assistant. Answer with the turn number you were asked about.";
const SUMMARIZER = "cheap-summarizer";

let fake: FakeUpstream;
let gw: RunningGateway;
let client: OpenAI;
const limit: LimitLog = { accepted: [], refused: [] };
/** Requests the strict rules refused (pairing, system prompt), with why. */
const broken: string[] = [];
let calls = 0;

const readLog: ChatCompletionTool = {
  type: "function",
  function: { name: "read_log", description: "Reads the log of a turn (runs on the client)", parameters: { type: "object", properties: { turn: { type: "integer" } }, required: ["turn"] } },
};

type Body = { model: string; messages: { role: string; content?: unknown; tool_calls?: unknown[] }[] };
const textOf = (content: unknown): string => (typeof content === "string" ? content : Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? "").join("") : "");

/** The scripted model: asked turn N, it reads turn N's log; given the log, it answers "answer N". The summarizer summarizes. */
function reply(body: Body) {
  if (body.model === SUMMARIZER) {
    const text = textOf(body.messages.at(-1)?.content);
    const turns = [...text.matchAll(/question (\d+)/g)].map((m) => m[1]);
    return { content: `SUMMARY: the user asked about turns ${turns.join(", ")}.`, finish: "stop" };
  }
  const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
  const turn = /question (\d+)/.exec(textOf(lastUser?.content))?.[1] ?? "?";
  if (body.messages.at(-1)?.role === "tool") return { content: `answer ${turn}`, finish: "stop" };
  return { content: null, tool_calls: [{ id: `call_${++calls}`, name: "read_log", arguments: JSON.stringify({ turn: Number(turn) }) }], finish: "tool_calls" };
}

const rules = openaiFamily("openai").rules;

function handle(req: RecordedRequest, res: Parameters<Parameters<typeof startFakeUpstream>[0] & {}>[1]) {
  const body = req.body as Body;
  const rejection = firstRejection(rules, body);
  if (rejection) {
    broken.push(rejection.message);
    return sendJson(res, rejection.status, rejection.body);
  }
  if (body.model !== SUMMARIZER && (body.messages[0]?.role !== "system" || textOf(body.messages[0]?.content) !== SYSTEM)) {
    broken.push("the system prompt is missing");
    const refusal = openAiError(400, "the system prompt is missing", { param: "messages" });
    return sendJson(res, refusal.status, refusal.body);
  }
  sendJson(res, 200, renderCompletion(reply(body), body.model));
}

beforeAll(async () => {
  fake = await startFakeUpstream(withContextLimit("openai", WINDOW, handle, limit));
  gw = await startGateway({
    mcpServers: {},
    providers: { fake: { type: "openai", baseURL: `${fake.url}/v1`, apiKey: "sk-upstream", capabilities: { "small-*": { contextWindow: WINDOW } } } },
    models: {
      trimmed: { model: "fake/small-model", context: { strategy: "trim" } },
      summarized: { model: "fake/small-model", context: { strategy: "summarize", summarizer: `fake/${SUMMARIZER}`, threshold: 0.8, keepRecentTurns: 2 } },
    },
    gateway: { retries: { attempts: 1 } },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await fake?.close();
});

interface Compacted {
  strategy: string;
  turns_removed: number;
  tokens_before: number;
  tokens_after: number;
  summarized: boolean;
}

/** One turn of the conversation: the question, the client's tool call and its large result, the answer. */
async function turn(model: string, messages: ChatCompletionMessageParam[], n: number, log: (n: number) => string): Promise<Compacted | undefined> {
  messages.push({ role: "user", content: `question ${n}: what happened in turn ${n}?` });
  const first = await client.chat.completions.create({ model, messages, tools: [readLog] });
  const call = first.choices[0]!.message.tool_calls?.[0];
  expect(call?.type === "function" && call.function.name).toBe("read_log");
  messages.push({ role: "assistant", content: null, tool_calls: first.choices[0]!.message.tool_calls! });
  messages.push({ role: "tool", tool_call_id: call!.id, content: log(n) });
  const second = await client.chat.completions.create({ model, messages, tools: [readLog] });
  expect(second.choices[0]!.message.content).toBe(`answer ${n}`);
  messages.push({ role: "assistant", content: `answer ${n}` });
  return (second as unknown as { mcp_gateway: { compacted?: Compacted } }).mcp_gateway.compacted;
}

const latinLog = (n: number) => `turn ${n}: request served in ${n % 97} ms from cache node ${n % 7}, status ok.\n`.repeat(30);
const cjkLog = (n: number) => `第${n}轮：请求由缓存节点${n % 7}处理，耗时${n % 97}毫秒，状态正常。日志记录完整，没有发现错误。\n`.repeat(20);

describe("a 300-turn conversation through a model with a small context window", () => {
  it("trim: every request fits, keeps the system prompt and its tool pairs, and the client is answered throughout", async () => {
    const before = { accepted: limit.accepted.length, refused: limit.refused.length };
    const messages: ChatCompletionMessageParam[] = [{ role: "system", content: SYSTEM }];
    let last: Compacted | undefined;
    for (let n = 0; n < 300; n++) last = await turn("trimmed", messages, n, latinLog);
    expect(broken).toEqual([]);
    expect(limit.refused.length).toBe(before.refused);
    expect(limit.accepted.length - before.accepted).toBe(600);
    // The client holds all of it; what the model saw was cut to the window.
    expect(promptTokens("openai", { messages })).toBeGreaterThan(25 * WINDOW);
    expect(last).toMatchObject({ strategy: "trim", summarized: false });
    expect(last!.turns_removed).toBeGreaterThan(250);
    expect(last!.tokens_before).toBeGreaterThan(25 * WINDOW);
    expect(last!.tokens_after).toBeLessThanOrEqual(WINDOW * 0.8);
  }, 180_000);

  it("summarize, in Chinese: the configured summarizer writes what stands for the cut, the estimate stays within 15% of the real count", async () => {
    const before = { accepted: limit.accepted.length, refused: limit.refused.length, requests: fake.requests.length };
    const messages: ChatCompletionMessageParam[] = [{ role: "system", content: SYSTEM }];
    const ratios: number[] = [];
    for (let n = 0; n < 300; n++) {
      const compacted = await turn("summarized", messages, n, cjkLog);
      const sent = fake.requests.filter((r) => r.body.model === "small-model").at(-1)!;
      if (compacted) ratios.push(compacted.tokens_after / promptTokens("openai", sent.body));
    }
    expect(broken).toEqual([]);
    expect(limit.refused.length).toBe(before.refused);
    const requests = fake.requests.slice(before.requests);
    const summaries = requests.filter((r) => r.body.model === SUMMARIZER);
    // Called as configured: with its own model, whenever the threshold was passed again — not on every request.
    expect(summaries.length).toBeGreaterThan(5);
    expect(summaries.length).toBeLessThan(150);
    const main = requests.filter((r) => r.body.model === "small-model");
    expect(main).toHaveLength(600);
    const lastSent = main.at(-1)!.body as Body;
    expect(textOf(lastSent.messages[1]!.content)).toMatch(/^\[Summary of the earlier part of this conversation \(\d+ turns, removed to fit the model's context window\):\nSUMMARY: the user asked about turns/);
    expect(ratios.length).toBeGreaterThan(250);
    for (const ratio of ratios) expect(Math.abs(ratio - 1)).toBeLessThan(0.15);
  }, 180_000);
});
