/**
 * One adapter per configured provider, built once at start-up (never per request). A provider
 * whose settings reference an unset environment variable is kept as unavailable, with the
 * variable to set, instead of failing the whole gateway.
 */
import { createAnthropicAdapter } from "../../adapters/anthropic/index.ts";
import { createGeminiAdapter } from "../../adapters/gemini/index.ts";
import { createOpenAIChatAdapter } from "../../adapters/openai-chat/index.ts";
import { createOpenAIResponsesAdapter } from "../../adapters/openai-responses/index.ts";
import type { AdapterOptions, ModelAdapter } from "../../adapters/types.ts";
import { describeQuirks, PENALTY_FIELDS, resolveQuirks, schemaTargetOf, type ResolvedQuirks } from "../../adapters/quirks/index.ts";
import { ConfigError, type ResolvedProviderConfig } from "../../core/config/index.ts";
import type { SchemaTarget } from "../../core/index.ts";

export interface ProviderEntry {
  name: string;
  type: ResolvedProviderConfig["type"];
  config: ResolvedProviderConfig;
  /** Absent when the provider is unavailable. */
  adapter?: ModelAdapter;
  /** Why the provider cannot be used. */
  unavailable?: string;
  schemaTarget: SchemaTarget;
  /** The quirk preset and switches in force (OpenAI-protocol providers). */
  quirks?: ResolvedQuirks;
}

export type AdapterFactory = (config: ResolvedProviderConfig, options: AdapterOptions, quirks: ResolvedQuirks | undefined) => ModelAdapter;

const defaultFactory: AdapterFactory = (config, options, quirks) => {
  switch (config.type) {
    case "anthropic":
      return createAnthropicAdapter(options);
    case "openai-responses":
      return createOpenAIResponsesAdapter(options);
    case "openai":
      return createOpenAIChatAdapter(options, quirks ? { quirks: quirks.switches } : {});
    case "gemini":
      return createGeminiAdapter(options, config.auth === undefined ? {} : { auth: config.auth });
  }
};

/** The schema dialect of a protocol, where no quirks preset says otherwise (Gemini's subset). */
const SCHEMA_TARGET: Record<ResolvedProviderConfig["type"], SchemaTarget> = {
  openai: "openai",
  anthropic: "anthropic",
  "openai-responses": "openai",
  gemini: "gemini",
};

/**
 * The provider's quirks, or a ConfigError naming `providers.<name>.quirks` in `source` (the
 * config file's path).
 */
export function providerQuirks(config: ResolvedProviderConfig, source = "(config)"): ResolvedQuirks | undefined {
  if (config.auth !== undefined && config.type !== "gemini") {
    throw new ConfigError(source, [{ path: `providers.${config.name}.auth`, message: 'auth applies to Gemini providers (type "gemini"); the other protocols send their key their own way' }]);
  }
  // The presets describe Chat Completions servers; the other protocols have one upstream each
  // (a `gemini` provider's differences between model generations are the adapter's own table).
  if (config.type !== "openai") {
    if (config.quirks !== undefined) {
      throw new ConfigError(source, [{ path: `providers.${config.name}.quirks`, message: "quirks presets apply to OpenAI-protocol providers (type \"openai\")" }]);
    }
    return undefined;
  }
  let resolved: ResolvedQuirks;
  try {
    resolved = resolveQuirks(config.quirks);
  } catch (error) {
    throw new ConfigError(source, [{ path: `providers.${config.name}.quirks`, message: (error as Error).message }]);
  }
  return forServer(resolved, config.baseURL);
}

/** Hosts of OpenAI's own API: api.openai.com, its data-residency hosts, Azure OpenAI (public, US Government, China). */
const OPENAI_HOST_SUFFIXES = [".api.openai.com", ".openai.azure.com", ".openai.azure.us", ".openai.azure.cn", ".cognitiveservices.azure.com", ".services.ai.azure.com"];

function isOpenAI(baseURL: string | undefined): boolean {
  if (baseURL === undefined) return true;
  try {
    const host = new URL(baseURL).hostname;
    return host === "api.openai.com" || OPENAI_HOST_SUFFIXES.some((suffix) => host.endsWith(suffix));
  } catch {
    return false;
  }
}

/**
 * The `openai` preset is what OpenAI's own API takes: the token limit in the field the client
 * chose (its reasoning models refuse `max_tokens`) and every OpenAI-only field. Any other
 * server behind that preset (an in-house or unlisted compatible one) may know only
 * `max_tokens` and drop the limit silently, or refuse fields it does not know: it gets
 * `max_tokens`, the penalties only, and no message names or image detail, unless the config
 * sets those switches. (A model
 * named like OpenAI's reasoning models keeps the client's field anywhere: to-request.ts.)
 */
function forServer(resolved: ResolvedQuirks, baseURL: string | undefined): ResolvedQuirks {
  if (resolved.preset !== "openai" || isOpenAI(baseURL)) return resolved;
  const switches = { ...resolved.switches };
  if (!resolved.overrides.includes("maxTokensField")) switches.maxTokensField = "max_tokens";
  if (!resolved.overrides.includes("openaiOnlyFields")) switches.openaiOnlyFields = [...PENALTY_FIELDS];
  if (!resolved.overrides.includes("messageNames")) switches.messageNames = false;
  if (!resolved.overrides.includes("imageDetail")) switches.imageDetail = false;
  return { ...resolved, switches };
}

/** Every provider's quirks, resolved at once: one ConfigError naming all the bad ones. */
export function resolveProviderQuirks(configs: Record<string, ResolvedProviderConfig>, source = "(config)"): Map<string, ResolvedQuirks | undefined> {
  const resolved = new Map<string, ResolvedQuirks | undefined>();
  const problems: ConfigError["problems"] = [];
  for (const [name, config] of Object.entries(configs)) {
    try {
      resolved.set(name, providerQuirks(config, source));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError(source, problems);
  return resolved;
}

export function buildProviders(configs: Record<string, ResolvedProviderConfig>, factory: AdapterFactory = defaultFactory, source = "(config)"): Map<string, ProviderEntry> {
  const allQuirks = resolveProviderQuirks(configs, source);
  const entries = new Map<string, ProviderEntry>();
  for (const [name, config] of Object.entries(configs)) {
    const quirks = allQuirks.get(name);
    const schemaTarget: SchemaTarget = quirks ? schemaTargetOf(quirks.switches) : SCHEMA_TARGET[config.type];
    const base = { name, type: config.type, config, schemaTarget, ...(quirks ? { quirks } : {}) };
    if (config.missingVariables.length > 0) {
      const vars = config.missingVariables.join(", ");
      entries.set(name, { ...base, unavailable: `provider "${name}" is unavailable: set the environment variable ${vars}` });
      continue;
    }
    const options: AdapterOptions = {
      id: name,
      ...(config.baseURL === undefined ? {} : { baseURL: config.baseURL }),
      ...(config.apiKey === undefined ? {} : { apiKey: config.apiKey }),
      ...(config.headers === undefined ? {} : { headers: config.headers }),
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
      ...(config.maxTokens === undefined ? {} : { defaultMaxTokens: config.maxTokens }),
    };
    entries.set(name, { ...base, adapter: factory(config, options, quirks) });
  }
  return entries;
}

/**
 * The quirk preset in force for a provider, for `mcp-gateway check`; a provider of another
 * protocol has none, and shows its type ("anthropic", "openai-responses", "gemini").
 */
export function describeProviderQuirks(quirks: ResolvedQuirks | undefined, type: ResolvedProviderConfig["type"] = "anthropic"): string {
  return quirks ? describeQuirks(quirks) : type;
}
