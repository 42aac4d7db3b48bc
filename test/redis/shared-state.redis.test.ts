/**
 * Two gateway instances sharing one Redis (a real redis-server): a mixed-tool conversation whose
 * follow-up lands on the other instance splices its hidden steps, through each door; a stored
 * response is continued and retrieved on the other instance. Redis going away degrades as
 * documented — plain requests go on, /health says so, what needs stored state is a 503 — and the
 * gateway recovers without a restart.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let redis: RunningRedis;
let upstream: ScriptedUpstream;
let a: RunningGateway;
let b: RunningGateway;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream("openai");
  const config = {
    providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
    gateway: { store: { redis: { url: redis.url, keyPrefix: "shared-test:" } }, retries: { attempts: 1 } },
  };
  a = await startGateway(config);
  b = await startGateway(config);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  await redis?.stop();
});

const mixed = () =>
  replies(
    { calls: [{ id: "call_m", name: "everything__echo", arguments: { message: "hi" } }, { id: "call_c", name: "lookup", arguments: { q: "x" } }] },
    { text: "Done." },
  );

/** The follow-up's upstream request carries the hidden MCP step: both calls, both results. */
function expectSpliced(): void {
  const messages = upstream.chatRequests()[1]!.body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  expect(messages.find((m) => m.role === "assistant")!.tool_calls!.map((c) => c.id)).toEqual(["call_m", "call_c"]);
  expect(messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_m", "call_c"]);
}

beforeEach(() => upstream.script(mixed()));

describe("two instances, one Redis", () => {
  it("Chat Completions: the follow-up on the other instance splices the hidden steps", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
    const question: OpenAI.ChatCompletionMessageParam = { role: "user", content: "Go" };
    const first = await new OpenAI({ baseURL: `${a.url}/v1`, apiKey: "x", maxRetries: 0 }).chat.completions.create({ model: "p/m", messages: [question], tools });
    const call = first.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    const second = await new OpenAI({ baseURL: `${b.url}/v1`, apiKey: "x", maxRetries: 0 }).chat.completions.create({
      model: "p/m",
      tools,
      messages: [question, { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: call.function }] }, { role: "tool", tool_call_id: call.id, content: "found" }],
    });
    expect(second.choices[0]!.message.content).toBe("Done.");
    expectSpliced();
  });

  it("Messages: likewise", async () => {
    const tools: Anthropic.Tool[] = [{ name: "lookup", input_schema: { type: "object", properties: { q: { type: "string" } } } }];
    const first = await new Anthropic({ baseURL: a.url, apiKey: "x", maxRetries: 0 }).messages.create({ model: "p/m", max_tokens: 100, tools, messages: [{ role: "user", content: "Go" }] });
    const use = first.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    await new Anthropic({ baseURL: b.url, apiKey: "x", maxRetries: 0 }).messages.create({
      model: "p/m",
      max_tokens: 100,
      tools,
      messages: [
        { role: "user", content: "Go" },
        { role: "assistant", content: first.content as Anthropic.ContentBlockParam[] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "found" }] },
      ],
    });
    expectSpliced();
  });

  it("Responses: a stored response is retrieved and continued on the other instance", async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } }, strict: false }];
    const first = await new OpenAI({ baseURL: `${a.url}/v1`, apiKey: "x", maxRetries: 0 }).responses.create({ model: "p/m", input: "Go", tools });
    const other = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: "x", maxRetries: 0 });
    expect((await other.responses.retrieve(first.id)).id).toBe(first.id);
    const second = await other.responses.create({ model: "p/m", previous_response_id: first.id, tools, input: [{ type: "function_call_output", call_id: "call_c", output: "found" }] });
    expect(second.output_text).toBe("Done.");
    expectSpliced();
  });
});

describe("Redis going away", () => {
  it("plain requests go on, /health says degraded, stored state is a 503, and it all recovers", async () => {
    upstream.script([{ text: "Plain." }]);
    const client = new OpenAI({ baseURL: `${a.url}/v1`, apiKey: "x", maxRetries: 0 });
    const stored = await client.responses.create({ model: "p/m", input: "Hi" });
    await redis.stop();
    try {
      const plain = await client.chat.completions.create({ model: "p/m", messages: [{ role: "user", content: "Hi" }] });
      expect(plain.choices[0]!.message.content).toBe("Plain.");
      const health = (await (await fetch(`${a.url}/health`)).json()) as { status: string; store: { status: string } };
      expect(health.status).toBe("degraded");
      expect(health.store).toMatchObject({ kind: "redis", status: "down" });
      const error = await client.responses.create({ model: "p/m", previous_response_id: stored.id, input: "More" }).catch((e: unknown) => e);
      expect(error).toMatchObject({ status: 503 });
      expect((error as InstanceType<typeof OpenAI.APIError>).headers?.get("retry-after")).toBe("1");
    } finally {
      await redis.start();
    }
    // The client reconnects by itself: watched, as an operator would watch /health.
    await vi.waitFor(() => expect(a.gateway.store.health().status).toBe("ok"), { timeout: 15_000, interval: 20 });
    const again = await client.responses.create({ model: "p/m", input: "Hi again" });
    expect((await client.responses.retrieve(again.id)).id).toBe(again.id);
  });
});
