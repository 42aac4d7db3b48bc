/**
 * The Messages door's surroundings: keys by `x-api-key` or Bearer (errors in Anthropic's shape),
 * Claude Code's HEAD probe without a key, models in Anthropic's list shape, alias patterns,
 * count_tokens estimated for non-Anthropic providers, and the one shared core: the same
 * scripted conversation through /v1/chat/completions, /v1/messages and /v1/responses sends the
 * same upstream requests.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const KEY = "gw-key-123456";
let upstream: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({
    providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k", models: ["m1"] } },
    models: {
      "claude-haiku-*": { model: "p/small" },
      "claude-*": { model: "p/big" },
      fast: { model: "p/fast" },
    },
    gateway: { apiKeys: [KEY], retries: { attempts: 1 } },
  });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});
beforeEach(() => upstream.script([{ text: "ok" }]));

const anthropic = (apiKey = KEY) => new Anthropic({ baseURL: gw.url, apiKey, maxRetries: 0 });

describe("keys and probes", () => {
  it("takes the gateway key as x-api-key (API key) or Bearer (auth token)", async () => {
    const viaApiKey = await anthropic().messages.create({ model: "p/m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(viaApiKey.content).toEqual([{ type: "text", text: "ok" }]);
    const viaToken = new Anthropic({ baseURL: gw.url, apiKey: null, authToken: KEY, maxRetries: 0 });
    const message = await viaToken.messages.create({ model: "p/m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(message.type).toBe("message");
  });

  it("refuses a wrong key with a 401 authentication_error in Anthropic's shape", async () => {
    const error = await anthropic("wrong").messages.create({ model: "p/m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).error).toMatchObject({ type: "error", error: { type: "authentication_error", message: "Invalid API key" } });
    expect(upstream.chatRequests()).toHaveLength(0);
  });

  it("answers Claude Code's HEAD /api/hello without a key", async () => {
    const response = await fetch(`${gw.url}/api/hello`, { method: "HEAD" });
    expect(response.status).toBe(200);
  });
});

describe("models", () => {
  it("lists in Anthropic's shape when asked with anthropic-version, OpenAI's otherwise", async () => {
    const page = await anthropic().models.list();
    const ids = page.data.map((model) => model.id);
    expect(ids).toEqual(["fast", "p/m1"]);
    expect(page.data[0]).toMatchObject({ type: "model", id: "fast", display_name: "fast" });
    const openai = await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY }).models.list();
    expect(openai.data.map((model) => model.id)).toEqual(["fast", "p/m1"]);
  });

  it("routes hard-coded model names through the most specific alias pattern", async () => {
    const client = anthropic();
    await client.messages.create({ model: "claude-haiku-4-5-20251001", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    await client.messages.create({ model: "claude-opus-5-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
    expect(upstream.chatRequests().map((r) => r.body.model)).toEqual(["small", "big"]);
    const unknown = await client.messages.create({ model: "gpt-x", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
  });
});

describe("count_tokens without an Anthropic upstream", () => {
  it("estimates, the gateway's MCP tools included, and counts CJK text by character", async () => {
    const client = anthropic();
    const base = { model: "p/m", messages: [{ role: "user" as const, content: "Hello there, how are you today?" }] };
    const withTools = await client.messages.countTokens(base);
    const without = await client.messages.countTokens(base, { headers: { "x-mcp-servers": "none" } });
    expect(without.input_tokens).toBeGreaterThan(0);
    expect(withTools.input_tokens).toBeGreaterThan(without.input_tokens + 100);
    const cjk = await client.messages.countTokens({ model: "p/m", messages: [{ role: "user", content: "今日は良い天気ですね。散歩に行きましょう。" }] }, { headers: { "x-mcp-servers": "none" } });
    const latin = await client.messages.countTokens({ model: "p/m", messages: [{ role: "user", content: "a".repeat(22) }] }, { headers: { "x-mcp-servers": "none" } });
    expect(cjk.input_tokens).toBeGreaterThan(latin.input_tokens + 10);
  });
});

describe("one core behind every door", () => {
  it("the same conversation through /v1/chat/completions, /v1/messages and /v1/responses sends the same upstream requests", async () => {
    const script = () =>
      replies(
        { text: "Let me add.", calls: [{ id: "call_1", name: "everything__get-sum", arguments: { a: 20, b: 22 } }] },
        { text: "42." },
      );
    const system = "You add numbers.";
    const question = "What is 20 + 22?";
    upstream.script(script());
    await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 }).chat.completions.create({
      model: "fast",
      max_tokens: 300,
      temperature: 0.5,
      messages: [
        { role: "system", content: system },
        { role: "user", content: question },
      ],
    });
    const viaChat = upstream.chatRequests().map((r) => r.body);
    upstream.script(script());
    // SDK 1.12 no longer types the sampling parameters; the API still takes them.
    const params = { model: "fast", max_tokens: 300, temperature: 0.5, system, messages: [{ role: "user", content: question }] };
    await anthropic().messages.create(params as Anthropic.MessageCreateParamsNonStreaming);
    const viaMessages = upstream.chatRequests().map((r) => r.body);
    upstream.script(script());
    await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 }).responses.create({ model: "fast", max_output_tokens: 300, temperature: 0.5, instructions: system, input: question });
    const viaResponses = upstream.chatRequests().map((r) => r.body);
    expect(viaChat).toHaveLength(2);
    expect(viaMessages).toEqual(viaChat);
    expect(viaResponses).toEqual(viaChat);
  });
});
