/** The quirks a provider entry ends up with: its preset, its overrides, and where it points. */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { OPENAI_ONLY_FIELDS } from "../../src/adapters/quirks/presets.ts";
import { openaiPassThroughFields } from "../../src/gateway/doors/chat-completions/request-schema.ts";
import { providerQuirks } from "../../src/gateway/routing/providers.ts";

const provider = (entry: Record<string, unknown>) => resolveConfig({ mcpServers: {}, providers: { p: { type: "openai", apiKey: "k", ...entry } } }, {}).providers.p!;
const field = (entry: Record<string, unknown>) => providerQuirks(provider(entry))?.switches.maxTokensField;

describe("providerQuirks: the token-limit field of the openai preset", () => {
  it.each([
    ["no baseURL (OpenAI)", {}],
    ["api.openai.com", { baseURL: "https://api.openai.com/v1" }],
    ["Azure OpenAI", { baseURL: "https://my-res.openai.azure.com/openai/v1" }],
    ["an OpenAI data-residency host", { baseURL: "https://eu.api.openai.com/v1" }],
    ["Azure OpenAI for US Government", { baseURL: "https://my-res.openai.azure.us/openai/v1" }],
  ])("%s: the field the client chose (as-sent)", (_name, entry) => {
    expect(field(entry)).toBe("as-sent");
  });

  it("any other server behind the openai preset gets max_tokens (it may know nothing else)", () => {
    expect(field({ baseURL: "http://127.0.0.1:8000/v1" })).toBe("max_tokens");
    expect(field({ baseURL: "https://openrouter.ai/api/v1", quirks: "openai" })).toBe("max_tokens");
  });

  it("an explicit maxTokensField wins, and other presets keep theirs", () => {
    expect(field({ baseURL: "http://127.0.0.1:8000/v1", quirks: { maxTokensField: "as-sent" } })).toBe("as-sent");
    expect(field({ baseURL: "https://api.groq.com/openai/v1", quirks: "groq" })).toBe("as-sent");
    expect(field({ baseURL: "http://127.0.0.1:8000/v1", quirks: "vllm" })).toBe("as-sent");
    expect(field({ baseURL: "https://api.deepseek.com", quirks: "deepseek" })).toBe("max_tokens");
  });
});

describe("providerQuirks: the OpenAI-only fields of the openai preset", () => {
  const fields = (entry: Record<string, unknown>) => providerQuirks(provider(entry))?.switches.openaiOnlyFields;

  it("OpenAI itself gets all of them; any other server behind the preset the penalties only, unless configured", () => {
    expect(fields({})).toEqual(["*"]);
    expect(fields({ baseURL: "https://us.api.openai.com/v1" })).toEqual(["*"]);
    expect(fields({ baseURL: "https://openrouter.ai/api/v1" })).toEqual(["frequency_penalty", "presence_penalty"]);
    expect(fields({ baseURL: "https://openrouter.ai/api/v1", quirks: { openaiOnlyFields: ["*"] } })).toEqual(["*"]);
  });

  it("Groq gets all but what it refuses (logit_bias, metadata, store); Mistral the penalties; Gemini and GLM none", () => {
    const groq = fields({ baseURL: "https://api.groq.com/openai/v1", quirks: "groq" });
    expect(groq).toContain("service_tier");
    for (const refused of ["logit_bias", "metadata", "store"]) expect(groq).not.toContain(refused);
    expect(fields({ baseURL: "https://generativelanguage.googleapis.com/v1beta/openai", quirks: "gemini" })).toEqual([]);
    expect(fields({ baseURL: "https://api.mistral.ai/v1", quirks: "mistral" })).toEqual(["frequency_penalty", "presence_penalty"]);
    expect(fields({ baseURL: "https://open.bigmodel.cn/api/paas/v4", quirks: "zhipu" })).toEqual([]);
  });

  it("a bad value names the switch and what it takes; a misspelled field gets a did-you-mean", () => {
    expect(() => providerQuirks(provider({ quirks: { openaiOnlyFields: "all" } }))).toThrow('expected an array of request field names ("*" for all, or of frequency_penalty,');
    expect(() => providerQuirks(provider({ quirks: { openaiOnlyFields: ["frequency_penalties"] } }))).toThrow('unknown field "frequency_penalties" (did you mean "frequency_penalty"?)');
  });

  it("the switch knows exactly the fields the ingress passes on", () => {
    expect(Object.keys(openaiPassThroughFields).sort()).toEqual([...OPENAI_ONLY_FIELDS].sort());
  });
});
