/**
 * A requested model name -> the provider, the provider's model id and the alias settings.
 * Names are `provider/model` (split at the first slash: model ids may hold slashes) or an
 * alias from `models`.
 */
import { GatewayError } from "../../core/index.ts";
import type { ModelAliasConfig } from "../../core/config/index.ts";
import type { ProviderEntry } from "./providers.ts";

export interface ResolvedModel {
  /** The name the client asked for (echoed in responses). */
  requested: string;
  provider: ProviderEntry;
  /** The model id sent to the provider. */
  modelId: string;
  alias?: ModelAliasConfig;
  /** `provider/model` fallbacks to try in order (used by the retry layer). */
  fallbacks: string[];
}

export function resolveModel(
  name: string,
  providers: ReadonlyMap<string, ProviderEntry>,
  aliases: Readonly<Record<string, ModelAliasConfig>>,
): ResolvedModel {
  const alias = Object.hasOwn(aliases, name) ? aliases[name] : undefined;
  const target = alias?.model ?? name;
  const slash = target.indexOf("/");
  const provider = slash > 0 ? providers.get(target.slice(0, slash)) : undefined;
  if (!provider) {
    const known = [...Object.keys(aliases), ...[...providers.keys()].map((p) => `${p}/…`)].join(", ");
    throw GatewayError.notFound(
      `The model "${name}" does not exist: use "provider/model" with a configured provider, or an alias (${known || "none configured"})`,
      "model_not_found",
      "model",
    );
  }
  if (provider.unavailable || !provider.adapter) {
    throw new GatewayError(provider.unavailable ?? `provider "${provider.name}" is unavailable`, {
      status: 503,
      type: "api_error",
      code: "provider_unavailable",
      param: "model",
      provider: provider.name,
    });
  }
  return {
    requested: name,
    provider,
    modelId: target.slice(slash + 1),
    ...(alias ? { alias } : {}),
    fallbacks: alias?.fallbacks ?? [],
  };
}
