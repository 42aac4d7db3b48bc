/** `type: "openai-responses"` providers: config, the adapter the gateway builds, the `check` probe. */
import { describe, expect, it } from "vitest";
import { sendJson, startFakeUpstream } from "../../helpers/fake-upstream.ts";
import { ConfigError, resolveConfig } from "../../../src/core/config/index.ts";
import { probeProvider } from "../../../src/adapters/probe.ts";
import { buildProviders, describeProviderQuirks, providerQuirks } from "../../../src/gateway/routing/providers.ts";
import { userText } from "./support.ts";

const config = (entry: Record<string, unknown>) => resolveConfig({ mcpServers: {}, providers: { r: { type: "openai-responses", ...entry } } }, {});

describe("openai-responses providers", () => {
  it("are a provider type of the config, without quirks", () => {
    const provider = config({ apiKey: "k" }).providers.r!;
    expect(provider.type).toBe("openai-responses");
    expect(providerQuirks(provider)).toBeUndefined();
    expect(describeProviderQuirks(undefined, provider.type)).toBe("openai-responses");
    expect(() => providerQuirks(config({ quirks: "vllm" }).providers.r!)).toThrow(ConfigError);
  });

  it("get the Responses adapter and OpenAI's schema dialect", async () => {
    const upstream = await startFakeUpstream((_req, res) =>
      sendJson(res, 200, { id: "resp_1", object: "response", model: "gpt-5-mini", status: "completed", output: [{ id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "hi", annotations: [] }] }], usage: { input_tokens: 3, output_tokens: 1 } }),
    );
    try {
      const providers = buildProviders(config({ apiKey: "k", baseURL: `${upstream.url}/v1` }).providers);
      const entry = providers.get("r")!;
      expect(entry).toMatchObject({ type: "openai-responses", schemaTarget: "openai" });
      expect(entry.quirks).toBeUndefined();
      const result = await entry.adapter!.complete({ model: "gpt-5-mini", messages: [userText("hi")] });
      expect(result.message.content).toEqual([{ type: "text", text: "hi" }]);
      expect(upstream.requests[0]).toMatchObject({ path: "/v1/responses", body: { store: false } });
      expect(upstream.requests[0]!.headers.authorization).toBe("Bearer k");
    } finally {
      await upstream.close();
    }
  });

  it("are probed by `check` with OpenAI's model list", async () => {
    const upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, { object: "list", data: [] }));
    try {
      const probe = await probeProvider(config({ apiKey: "k", baseURL: `${upstream.url}/v1` }).providers.r!);
      expect(probe.ok).toBe(true);
      expect(upstream.requests[0]).toMatchObject({ method: "GET", path: "/v1/models" });
      expect(upstream.requests[0]!.headers.authorization).toBe("Bearer k");
    } finally {
      await upstream.close();
    }
  });
});
