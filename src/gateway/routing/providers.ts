/**
 * One adapter per configured provider, built once at start-up (never per request). A provider
 * whose settings reference an unset environment variable is kept as unavailable, with the
 * variable to set, instead of failing the whole gateway.
 */
import { createAnthropicAdapter } from "../../adapters/anthropic/index.ts";
import { createOpenAIChatAdapter } from "../../adapters/openai-chat/index.ts";
import type { AdapterOptions, ModelAdapter } from "../../adapters/types.ts";
import type { ResolvedProviderConfig } from "../../core/config/index.ts";
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
}

export type AdapterFactory = (config: ResolvedProviderConfig, options: AdapterOptions) => ModelAdapter;

const defaultFactory: AdapterFactory = (config, options) =>
  config.type === "anthropic" ? createAnthropicAdapter(options) : createOpenAIChatAdapter(options);

function schemaTargetOf(config: ResolvedProviderConfig): SchemaTarget {
  if (config.type === "anthropic") return "anthropic";
  return config.quirks === "gemini" ? "gemini" : "openai";
}

export function buildProviders(configs: Record<string, ResolvedProviderConfig>, factory: AdapterFactory = defaultFactory): Map<string, ProviderEntry> {
  const entries = new Map<string, ProviderEntry>();
  for (const [name, config] of Object.entries(configs)) {
    const base = { name, type: config.type, config, schemaTarget: schemaTargetOf(config) };
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
    entries.set(name, { ...base, adapter: factory(config, options) });
  }
  return entries;
}

/** The quirk preset in force for a provider, for `mcp-gateway check`. */
export function describeProviderQuirks(config: ResolvedProviderConfig): string {
  if (config.type === "anthropic") return "anthropic";
  if (config.quirks === undefined) return "openai";
  return typeof config.quirks === "string" ? config.quirks : `custom (${Object.keys(config.quirks).join(", ")})`;
}
