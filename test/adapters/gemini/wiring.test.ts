/** `type: "gemini"` providers: config, the adapter the gateway builds, authentication, the `check` probe. */
import { describe, expect, it } from "vitest";
import { sendJson, startFakeUpstream } from "../../helpers/fake-upstream.ts";
import { ConfigError, resolveConfig } from "../../../src/core/config/index.ts";
import { probeProvider, probeRequest } from "../../../src/adapters/probe.ts";
import { countTokensBody, GeminiTransport } from "../../../src/adapters/gemini/index.ts";
import { buildProviders, describeProviderQuirks, providerQuirks } from "../../../src/gateway/routing/providers.ts";
import { userText } from "./support.ts";

const config = (entry: Record<string, unknown>, type = "gemini") => resolveConfig({ mcpServers: {}, providers: { g: { type, ...entry } } }, {});
const answer = { candidates: [{ content: { role: "model", parts: [{ text: "hi" }] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 }, modelVersion: "gemini-2.5-flash", responseId: "r1" };

describe("gemini providers", () => {
  it("are a provider type of the config, without quirks presets", () => {
    const provider = config({ apiKey: "k" }).providers.g!;
    expect(provider.type).toBe("gemini");
    expect(providerQuirks(provider)).toBeUndefined();
    expect(describeProviderQuirks(undefined, provider.type)).toBe("gemini");
    expect(() => providerQuirks(config({ quirks: "gemini" }).providers.g!)).toThrow(ConfigError);
  });

  it("take `auth` (api-key or bearer); other types refuse it, and an unknown value is a config error", () => {
    expect(config({ apiKey: "k", auth: "bearer" }).providers.g!.auth).toBe("bearer");
    expect(() => config({ apiKey: "k", auth: "oauth" })).toThrow(/providers\.g\.auth/);
    expect(() => providerQuirks(config({ apiKey: "k", auth: "bearer" }, "openai").providers.g!)).toThrow(/auth applies to Gemini providers/);
  });

  it("get the Gemini adapter and the gemini schema dialect; the key goes as x-goog-api-key", async () => {
    const upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, answer));
    try {
      const providers = buildProviders(config({ apiKey: "k", baseURL: `${upstream.url}/v1beta`, headers: { "x-extra": "1" } }).providers);
      const entry = providers.get("g")!;
      expect(entry).toMatchObject({ type: "gemini", schemaTarget: "gemini" });
      const result = await entry.adapter!.complete({ model: "gemini-2.5-flash", messages: [userText("hi")] });
      expect(result.message.content).toEqual([{ type: "text", text: "hi" }]);
      const sent = upstream.requests[0]!;
      expect(sent).toMatchObject({ method: "POST", path: "/v1beta/models/gemini-2.5-flash:generateContent", body: { contents: [{ role: "user", parts: [{ text: "hi" }] }] } });
      expect(sent.headers["x-goog-api-key"]).toBe("k");
      expect(sent.headers["x-extra"]).toBe("1");
      expect(sent.headers.authorization).toBeUndefined();
    } finally {
      await upstream.close();
    }
  });

  it("Vertex AI: the key as a bearer token, the model under the publisher path", async () => {
    const upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, answer));
    try {
      const base = `${upstream.url}/v1/projects/p/locations/us-central1/publishers/google`;
      const entry = buildProviders(config({ apiKey: "ya29.token", auth: "bearer", baseURL: base }).providers).get("g")!;
      await entry.adapter!.complete({ model: "gemini-2.5-pro", messages: [userText("hi")] });
      const sent = upstream.requests[0]!;
      expect(sent.path).toBe("/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent");
      expect(sent.headers.authorization).toBe("Bearer ya29.token");
      expect(sent.headers["x-goog-api-key"]).toBeUndefined();
    } finally {
      await upstream.close();
    }
  });

  it("default to Google AI Studio; streams ask for SSE; a model with its own path is taken as given", () => {
    const transport = new GeminiTransport({ id: "g" });
    expect(transport.url("gemini-3-pro-preview", "streamGenerateContent")).toBe("https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse");
    expect(transport.url("tunedModels/my-model", "generateContent")).toBe("https://generativelanguage.googleapis.com/v1beta/tunedModels/my-model:generateContent");
    expect(transport.vertex).toBe(false);
    expect(new GeminiTransport({ id: "g", baseURL: "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google" }).vertex).toBe(true);
  });

  it("count tokens with the whole request on AI Studio, with its fields on Vertex AI", () => {
    const body = { contents: [{ role: "user" as const, parts: [{ text: "hi" }] }], systemInstruction: { parts: [{ text: "be brief" }] }, toolConfig: { functionCallingConfig: { mode: "AUTO" as const } } };
    expect(countTokensBody(body, "gemini-2.5-flash", false)).toEqual({ generateContentRequest: { model: "models/gemini-2.5-flash", ...body } });
    expect(countTokensBody(body, "gemini-2.5-flash", true)).toEqual({ contents: body.contents, systemInstruction: body.systemInstruction });
  });

  it("are probed by `check`: AI Studio's model list with the key", async () => {
    const upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, { models: [] }));
    try {
      const probe = await probeProvider(config({ apiKey: "k", baseURL: `${upstream.url}/v1beta` }).providers.g!);
      expect(probe.ok).toBe(true);
      expect(upstream.requests[0]).toMatchObject({ method: "GET", path: "/v1beta/models?pageSize=1" });
      expect(upstream.requests[0]!.headers["x-goog-api-key"]).toBe("k");
    } finally {
      await upstream.close();
    }
  });

  it("a failed probe names the status", async () => {
    const upstream = await startFakeUpstream((_req, res) => sendJson(res, 400, { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } }));
    try {
      const probe = await probeProvider(config({ apiKey: "bad", baseURL: `${upstream.url}/v1beta` }).providers.g!);
      expect(probe).toMatchObject({ ok: false, detail: expect.stringContaining("HTTP 400") });
    } finally {
      await upstream.close();
    }
  });

  it("Vertex AI lists no models under a project: the probe counts one word's tokens with the first listed model, with the bearer token", () => {
    const base = "https://europe-west4-aiplatform.googleapis.com/v1/projects/p/locations/europe-west4/publishers/google";
    const { url, init } = probeRequest(config({ apiKey: "ya29.t", auth: "bearer", baseURL: base, models: ["gemini-2.5-pro"] }).providers.g!);
    expect(url).toBe(`${base}/models/gemini-2.5-pro:countTokens`);
    expect(init.method).toBe("POST");
    expect((init.headers as Record<string, string>).authorization).toBe("Bearer ya29.t");
    expect(JSON.parse(String(init.body))).toEqual({ contents: [{ role: "user", parts: [{ text: "ping" }] }] });
  });
});
