/**
 * A provider's context-length error, end to end, for each upstream protocol: a real client sends
 * a history longer than the fake's window (the alias compacts only on that error: no window is
 * configured), the fake refuses it with the provider's own status, shape and text, and the gateway
 * compacts once and retries — the client gets the answer and `mcp_gateway.compacted` says why.
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream, type Handler } from "../helpers/fake-upstream.ts";
import { withContextLimit, type LimitLog, type LimitProtocol } from "../helpers/context-limit.ts";
import { anthropicHandler, replyWith } from "../helpers/anthropic-rules.ts";
import { geminiHandler } from "../helpers/gemini-native-fake.ts";
import { openaiFamily } from "../helpers/strict-fakes/openai.ts";
import { firstRejection } from "../helpers/strict-fakes/strict-fake.ts";
import { renderCompletion } from "../helpers/strict-fakes/render.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

const WINDOW = 3_000;
const ANSWER = "Still here: the latest turn was 39.";

let fake: FakeUpstream | undefined;
let gw: RunningGateway | undefined;

afterEach(async () => {
  await gw?.close();
  await fake?.close();
  gw = undefined;
  fake = undefined;
});

/** Each upstream's answer, as its protocol sends it. */
const responders: Record<LimitProtocol, Handler> = {
  openai: (req, res) => {
    const rejection = firstRejection(openaiFamily("openai").rules, req.body);
    if (rejection) return sendJson(res, rejection.status, rejection.body);
    sendJson(res, 200, renderCompletion({ content: ANSWER, finish: "stop" }, req.body.model));
  },
  anthropic: anthropicHandler(
    replyWith({ id: "msg_01", type: "message", role: "assistant", model: "claude-test", content: [{ type: "text", text: ANSWER }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 2900, output_tokens: 9 } }),
  ),
  "openai-responses": (req, res) => {
    const message = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: ANSWER, annotations: [] }] };
    const response = { id: "resp_1", object: "response", model: req.body.model, status: "completed", error: null, incomplete_details: null, output: [message], usage: { input_tokens: 2900, input_tokens_details: { cached_tokens: 0 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2909 } };
    if (!req.body.stream) return sendJson(res, 200, response);
    const events = [
      { type: "response.created", response: { ...response, status: "in_progress", output: [], usage: null } },
      { type: "response.output_item.added", output_index: 0, item: { ...message, content: [] } },
      { type: "response.output_text.delta", output_index: 0, content_index: 0, item_id: message.id, delta: ANSWER },
      { type: "response.output_item.done", output_index: 0, item: message },
      { type: "response.completed", response },
    ];
    sendSse(res, events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(""));
  },
  gemini: geminiHandler((req, res) => {
    const body = { candidates: [{ content: { role: "model", parts: [{ text: ANSWER }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 2900, candidatesTokenCount: 9, totalTokenCount: 2909 }, modelVersion: "gemini-2.5-flash" };
    if (req.path.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`data: ${JSON.stringify(body)}\r\n\r\n`);
      return;
    }
    sendJson(res, 200, body);
  }),
};

const providerOf: Record<LimitProtocol, (url: string) => Record<string, unknown>> = {
  openai: (url) => ({ type: "openai", baseURL: `${url}/v1`, apiKey: "k" }),
  anthropic: (url) => ({ type: "anthropic", baseURL: url, apiKey: "k" }),
  "openai-responses": (url) => ({ type: "openai-responses", baseURL: `${url}/v1`, apiKey: "k" }),
  gemini: (url) => ({ type: "gemini", baseURL: `${url}/v1beta`, apiKey: "k" }),
};

const modelOf: Record<LimitProtocol, string> = { openai: "gpt-test", anthropic: "claude-test", "openai-responses": "gpt-5-mini", gemini: "gemini-2.5-flash" };

async function setUp(protocol: LimitProtocol): Promise<{ url: string; log: LimitLog }> {
  const log: LimitLog = { accepted: [], refused: [] };
  fake = await startFakeUpstream(withContextLimit(protocol, WINDOW, responders[protocol], log));
  gw = await startGateway({
    mcpServers: {},
    providers: { up: providerOf[protocol](fake.url) },
    // No window known: compaction happens only when the provider refuses.
    models: { long: { model: `up/${modelOf[protocol]}`, context: { strategy: "trim", keepRecentTurns: 2 } } },
    gateway: { retries: { attempts: 1 } },
  });
  return { url: gw.url, log };
}

/** 40 turns of about 200 tokens each: some 8,000 tokens, over the window of 3,000. */
const history = Array.from({ length: 40 }, (_, n) => [`question ${n}: ${"tell me about the weather in Paris today ".repeat(12)}`, `answer ${n}: ${"it is mild and sunny with a light breeze ".repeat(12)}`] as const);

type Info = { compacted?: { reason: string; strategy: string; turns_removed: number; tokens_before: number; tokens_after: number } };

function expectRetriedOnce(log: LimitLog, info: Info, protocol: LimitProtocol): void {
  expect(log.refused).toHaveLength(1);
  expect(log.accepted).toHaveLength(1);
  expect(log.accepted[0]!).toBeLessThanOrEqual(WINDOW);
  expect(info.compacted).toMatchObject({ reason: "context_length_error", strategy: "trim" });
  expect(info.compacted!.turns_removed, protocol).toBeGreaterThan(5);
  expect(info.compacted!.tokens_after).toBeLessThan(info.compacted!.tokens_before);
}

describe("a provider's context-length error triggers one compaction and a successful retry", () => {
  it.each(["openai", "gemini"] as const)("%s upstream, through /v1/chat/completions", async (protocol) => {
    const { url, log } = await setUp(protocol);
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "x", maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "system", content: "Be brief." }, ...history.flatMap(([q, a]) => [{ role: "user" as const, content: q }, { role: "assistant" as const, content: a }]), { role: "user", content: "question 40: are you still there?" }];
    const completion = await client.chat.completions.create({ model: "long", messages });
    expect(completion.choices[0]!.message.content).toBe(ANSWER);
    expectRetriedOnce(log, (completion as unknown as { mcp_gateway: Info }).mcp_gateway, protocol);
    // The retry kept the system prompt and the newest question.
    const sent = fake!.requests.at(-1)!.body;
    expect(JSON.stringify(sent)).toContain("Be brief.");
    expect(JSON.stringify(sent)).toContain("question 40: are you still there?");
    expect(JSON.stringify(sent)).not.toContain("question 0:");
  });

  it("anthropic upstream, through /v1/messages, streamed", async () => {
    const { url, log } = await setUp("anthropic");
    const client = new Anthropic({ baseURL: url, apiKey: "x", maxRetries: 0 });
    const messages: Anthropic.MessageParam[] = [...history.flatMap(([q, a]) => [{ role: "user" as const, content: q }, { role: "assistant" as const, content: a }]), { role: "user", content: "question 40: are you still there?" }];
    const stream = client.messages.stream({ model: "long", max_tokens: 200, system: "Be brief.", messages });
    let info: Info | undefined;
    // The gateway's report rides on the closing message_delta event.
    stream.on("streamEvent", (event) => {
      if (event.type === "message_delta") info = (event as unknown as { mcp_gateway: Info }).mcp_gateway;
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([expect.objectContaining({ type: "text", text: ANSWER })]);
    expect(log.refused[0]!.message).toMatch(/^prompt is too long: \d+ tokens > 3000 maximum$/);
    expectRetriedOnce(log, info!, "anthropic");
    const sent = fake!.requests.at(-1)!.body;
    expect(JSON.stringify(sent.system)).toContain("Be brief.");
    expect(sent.messages[0].role).toBe("user");
  });

  it("openai-responses upstream, through /v1/responses", async () => {
    const { url, log } = await setUp("openai-responses");
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "x", maxRetries: 0 });
    // OpenAI's text gives no numbers here: the gateway cuts to a share of what it sent (shorter history).
    const input: OpenAI.Responses.ResponseInputItem[] = [...history.slice(20).flatMap(([q, a]) => [{ role: "user" as const, content: q }, { role: "assistant" as const, content: a }]), { role: "user", content: "question 40: are you still there?" }];
    const response = await client.responses.create({ model: "long", instructions: "Be brief.", input, store: false });
    expect(response.output_text).toBe(ANSWER);
    expect(log.refused[0]!.message).toContain("exceeds the context window");
    expectRetriedOnce(log, (response as unknown as { mcp_gateway: Info }).mcp_gateway ?? {}, "openai-responses");
  });

  it("is not retried when nothing can go (the newest turn alone is over the window): the client gets the provider's error in its door's shape", async () => {
    const { url, log } = await setUp("openai");
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "x", maxRetries: 0 });
    const error = await client.chat.completions.create({ model: "long", messages: [{ role: "user", content: "word ".repeat(5_000) }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("maximum context length is 3000 tokens");
    expect(log.refused).toHaveLength(1);
  });
});
