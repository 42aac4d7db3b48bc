/** What a model can do, from the config: its provider's `capabilities` patterns and its alias's own. */
import type { CapabilitiesConfig, GatewayConfig, ModelAliasConfig } from "../../core/config/index.ts";
import { patternMatcher } from "../../loop/tool-views.ts";
import type { ResolvedModel } from "../routing/resolve-model.ts";

const patternsByProvider = new WeakMap<object, { match: (name: string) => boolean; literal: number; capabilities: CapabilitiesConfig }[]>();

/**
 * What a model can do: its provider's `capabilities` patterns that match the model id (the more
 * specific over the less), then its alias's own `capabilities` over them. Unset fields are unknown.
 */
export function capabilitiesOf(config: GatewayConfig, provider: string, modelId: string, alias?: ModelAliasConfig): CapabilitiesConfig {
  const table = config.providers[provider]?.capabilities;
  let capabilities: CapabilitiesConfig = {};
  if (table) {
    let patterns = patternsByProvider.get(table);
    if (!patterns) {
      patterns = Object.entries(table)
        .map(([pattern, caps]) => ({ match: patternMatcher([pattern]), literal: pattern.replaceAll("*", "").length, capabilities: caps }))
        .sort((a, b) => a.literal - b.literal);
      patternsByProvider.set(table, patterns);
    }
    for (const pattern of patterns) if (pattern.match(modelId)) capabilities = { ...capabilities, ...pattern.capabilities };
  }
  return { ...capabilities, ...(alias?.capabilities ?? {}) };
}

/** The capabilities of a routed request's model (its first candidate's). */
export function modelCapabilities(config: GatewayConfig, model: ResolvedModel): CapabilitiesConfig {
  return capabilitiesOf(config, model.provider.name, model.modelId, model.alias);
}
