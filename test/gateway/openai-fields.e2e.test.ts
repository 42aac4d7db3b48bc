/**
 * OpenAI request fields with no neutral meaning (penalties, logit_bias, service_tier, …) and the
 * token-limit field the client chose, end to end: the real `openai` client -> the gateway -> an
 * OpenAI-protocol strict fake (which refuses `max_tokens` for reasoning models with OpenAI's
 * recorded 400), a DeepSeek fake (whose API documents only `max_tokens`), and an Anthropic upstream
 * (whose Messages API has none of these fields).
 */
import { afterEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";

let gw: RunningGateway | undefined;
let fake: StrictFake | undefined;
let scripted: ScriptedUpstream | undefined;
afterEach(async () => {
  await gw?.close();
  await fake?.close();
  await scripted?.close();
  gw = fake = scripted = undefined;
});

const client = (running: RunningGateway) => new OpenAI({ baseURL: `${running.url}/v1`, apiKey: "unused", maxRetries: 0 });

const OPENAI_ONLY = {
  frequency_penalty: 0.5,
  presence_penalty: -0.25,
  logit_bias: { "50256": -100 },
  service_tier: "flex",
  store: false,
  metadata: { team: "search" },
  verbosity: "low",
  prompt_cache_key: "conversation-42",
  safety_identifier: "user-hash-1",
} as const;

async function viaStrictFake(preset: string): Promise<OpenAI> {
  fake = await startStrictFake(FAMILIES[preset]!());
  // The OpenAI fake stands for api.openai.com, where the openai preset keeps the client's
  // token-limit field and every OpenAI-only field; behind any other URL it sends max_tokens and
  // the penalties only, unless told (providers.ts).
  const quirks = preset === "openai" ? { preset, maxTokensField: "as-sent", openaiOnlyFields: ["*"], messageNames: true, imageDetail: true } : preset;
  gw = await startGateway({ mcpServers: {}, providers: { p: { type: "openai", baseURL: fake.url, apiKey: "k", quirks } }, gateway: { retries: { attempts: 1 } } });
  return client(gw);
}

describe("OpenAI-only request fields", () => {
  it.each([false, true])("reach an OpenAI-protocol provider as sent, with max_completion_tokens kept for a reasoning model (stream: %s)", async (stream) => {
    const openai = await viaStrictFake("openai");
    const params = { model: "p/o4-mini", messages: [{ role: "user" as const, content: "Hi" }], max_completion_tokens: 300, reasoning_effort: "xhigh" as const, ...OPENAI_ONLY };
    if (stream) {
      const chunks = await openai.chat.completions.create({ ...params, stream: true });
      for await (const _chunk of chunks) void _chunk;
    } else {
      const completion = await openai.chat.completions.create(params);
      expect(completion.choices[0]!.finish_reason).toBe("stop");
    }
    expect(fake!.rejections).toEqual([]);
    const sent = fake!.requests[0]!.body;
    expect(sent).toMatchObject({ ...OPENAI_ONLY, max_completion_tokens: 300, reasoning_effort: "xhigh" });
    expect(sent).not.toHaveProperty("max_tokens");
  });

  it("a client's max_tokens reaches a reasoning model as max_completion_tokens, the only field it takes", async () => {
    const openai = await viaStrictFake("openai");
    await openai.chat.completions.create({ model: "p/o4-mini", messages: [{ role: "user", content: "Hi" }], max_tokens: 300 });
    expect(fake!.rejections).toEqual([]);
    expect(fake!.requests[0]!.body.max_completion_tokens).toBe(300);
    expect(fake!.requests[0]!.body).not.toHaveProperty("max_tokens");
  });

  it("a provider that documents only max_tokens gets the client's max_completion_tokens under that name", async () => {
    const openai = await viaStrictFake("deepseek");
    await openai.chat.completions.create({ model: "p/deepseek-chat", messages: [{ role: "user", content: "Hi" }], max_completion_tokens: 300 });
    const sent = fake!.requests[0]!.body;
    expect(sent.max_tokens).toBe(300);
    expect(sent).not.toHaveProperty("max_completion_tokens");
  });

  it("Gemini (which refuses unknown fields, the penalties too) gets none; DeepSeek the penalties only (openaiOnlyFields)", async () => {
    const penaltiesOnly = (body: Record<string, unknown>) => {
      expect(body).toMatchObject({ frequency_penalty: 0.5, presence_penalty: -0.25 });
      for (const field of Object.keys(OPENAI_ONLY).filter((f) => !f.endsWith("_penalty"))) expect(body).not.toHaveProperty(field);
    };
    const gemini = await viaStrictFake("gemini");
    const ask = { model: "p/gemini-2.5-flash", messages: [{ role: "user" as const, content: "Hi" }], ...OPENAI_ONLY };
    expect((await gemini.chat.completions.create(ask)).choices[0]!.message).toBeDefined();
    expect(fake!.rejections).toEqual([]);
    for (const field of Object.keys(OPENAI_ONLY)) expect(fake!.requests[0]!.body).not.toHaveProperty(field);
    await gw!.close();
    await fake!.close();
    // The switch set to all: the fake refuses with Gemini's own text.
    fake = await startStrictFake(FAMILIES.gemini!());
    gw = await startGateway({ mcpServers: {}, providers: { p: { type: "openai", baseURL: fake.url, apiKey: "k", quirks: { preset: "gemini", openaiOnlyFields: ["*"] } } }, gateway: { retries: { attempts: 1 } } });
    const refused = await client(gw).chat.completions.create(ask).catch((e: unknown) => e);
    expect((refused as InstanceType<typeof OpenAI.APIError>).message).toContain('Invalid JSON payload received. Unknown name "frequency_penalty": Cannot find field.');
    await gw.close();
    await fake.close();
    const deepseek = await viaStrictFake("deepseek");
    await deepseek.chat.completions.create({ ...ask, model: "p/deepseek-chat" });
    penaltiesOnly(fake!.requests[0]!.body);
  });

  it("message names reach OpenAI; Mistral, which refuses them (422 extra_forbidden), does not get them", async () => {
    const named: OpenAI.ChatCompletionMessageParam[] = [
      { role: "system", content: "Moderate.", name: "rules" },
      { role: "user", content: "Hi, I am Ada.", name: "ada" },
      { role: "assistant", content: "Hello Ada.", name: "bot" },
      { role: "user", content: "And I am Bob.", name: "bob" },
    ];
    const openai = await viaStrictFake("openai");
    await openai.chat.completions.create({ model: "p/gpt-4o", messages: named });
    expect(fake!.requests[0]!.body.messages.map((m: { name?: string }) => m.name)).toEqual(["rules", "ada", "bot", "bob"]);
    await gw!.close();
    await fake!.close();
    const mistral = await viaStrictFake("mistral");
    const answer = await mistral.chat.completions.create({ model: "p/mistral-large-latest", messages: named });
    expect(answer.choices[0]!.message).toBeDefined();
    expect(fake!.rejections).toEqual([]);
    expect(fake!.requests[0]!.body.messages.some((m: { name?: string }) => m.name !== undefined)).toBe(false);
  });

  it("an image's detail reaches OpenAI and Mistral, not GLM (imageDetail)", async () => {
    const withImage: OpenAI.ChatCompletionMessageParam[] = [
      { role: "user", content: [{ type: "text", text: "What is this?" }, { type: "image_url", image_url: { url: "https://example.com/cat.png", detail: "low" } }] },
    ];
    const imagePart = () => fake!.requests[0]!.body.messages.at(-1).content.find((part: { type: string }) => part.type === "image_url");
    for (const [preset, kept] of [["openai", true], ["mistral", true], ["zhipu", false]] as const) {
      const openai = await viaStrictFake(preset);
      await openai.chat.completions.create({ model: "p/m", messages: withImage });
      expect(imagePart(), preset).toEqual({ type: "image_url", image_url: { url: "https://example.com/cat.png", ...(kept ? { detail: "low" } : {}) } });
      await gw!.close();
      await fake!.close();
      gw = fake = undefined;
    }
  });

  it("are checked for shape: a bad value is a 400 naming the field", async () => {
    const openai = await viaStrictFake("openai");
    const error = await openai.chat.completions.create({ model: "p/gpt-4o", messages: [{ role: "user", content: "Hi" }], frequency_penalty: 3 }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.APIError>).param).toBe("frequency_penalty");
    expect(fake!.requests).toHaveLength(0);
  });

  it("logprobs: true is refused with a 400 naming it (the answer could not carry them); false passes", async () => {
    const openai = await viaStrictFake("openai");
    const error = await openai.chat.completions.create({ model: "p/gpt-4o", messages: [{ role: "user", content: "Hi" }], logprobs: true }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.APIError>).param).toBe("logprobs");
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain("logprobs are not supported");
    await openai.chat.completions.create({ model: "p/gpt-4o", messages: [{ role: "user", content: "Hi" }], logprobs: false });
    expect(fake!.requests[0]!.body).not.toHaveProperty("logprobs");
  });

  it("are not sent to an Anthropic provider, whose Messages API has no such fields; the token limit is", async () => {
    scripted = await startScriptedUpstream("anthropic");
    gw = await startGateway({ mcpServers: {}, providers: { claude: { type: "anthropic", baseURL: scripted.url, apiKey: "k" } } });
    const completion = await client(gw).chat.completions.create({ model: "claude/claude-haiku-4-5", messages: [{ role: "user", content: "Hi" }], max_completion_tokens: 300, ...OPENAI_ONLY });
    expect(completion.choices[0]!.message.content).toBe("ok");
    const sent = scripted.chatRequests()[0]!.body;
    expect(sent.max_tokens).toBe(300);
    for (const field of [...Object.keys(OPENAI_ONLY), "max_completion_tokens"]) expect(sent).not.toHaveProperty(field);
  });
});
