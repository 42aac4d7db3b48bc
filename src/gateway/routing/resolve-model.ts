/**
 * A requested model name -> the providers to try, in order: the model itself (or each of the
 * alias's deployments), then the alias's fallbacks. Names are `provider/model` (split at the
 * first slash: model ids may hold slashes) or an alias from `models`. Unavailable providers (key
 * not set) are skipped; only when none is left is the request refused, naming what to set.
 */
import { GatewayError } from "../../core/index.ts";
import type { ModelAliasConfig } from "../../core/config/index.ts";
import type { ModelAdapter } from "../../adapters/types.ts";
import type { ProviderEntry } from "./providers.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export interface ModelCandidate {
  provider: ProviderEntry & { adapter: ModelAdapter };
  /** The model id sent to that provider. */
  modelId: string;
  /** Set when the candidate is one of an alias's `deployments` (not a fallback). */
  deployment?: Deployment;
}

/** One of an alias's deployments, as the router spreads and cools them down. */
export interface Deployment {
  /** `provider/model`, as configured: the deployment's name in logs and in the store. */
  ref: string;
  weight: number;
  /** How long it is skipped after a request gave up on it (0: never). */
  cooldownMs: number;
}

/** How long a failing deployment is skipped when its alias does not say (`cooldownMs`). */
export const DEFAULT_COOLDOWN_MS = 30_000;

export interface ResolvedModel {
  /** The name the client asked for (echoed in responses). */
  requested: string;
  /** The first candidate: whose schema dialect the tools are normalized to first. */
  provider: ModelCandidate["provider"];
  modelId: string;
  alias?: ModelAliasConfig;
  /**
   * Every available provider to try, in order (the primary first). An alias's deployments come
   * first, in config order, then its fallbacks; the deployment router (deployments.ts) puts them
   * in the order of one request.
   */
  candidates: ModelCandidate[];
}

function splitRef(ref: string, providers: ReadonlyMap<string, ProviderEntry>): { provider: ProviderEntry; modelId: string } | undefined {
  const slash = ref.indexOf("/");
  const provider = slash > 0 ? providers.get(ref.slice(0, slash)) : undefined;
  return provider ? { provider, modelId: ref.slice(slash + 1) } : undefined;
}

function notFound(name: string, providers: ReadonlyMap<string, ProviderEntry>, aliases: Readonly<Record<string, ModelAliasConfig>>): GatewayError {
  const known = [...Object.keys(aliases), ...[...providers.keys()].map((p) => `${p}/…`)].join(", ");
  return GatewayError.notFound(
    `The model "${name}" does not exist: use "provider/model" with a configured provider, or an alias (${known || "none configured"})`,
    "model_not_found",
    "model",
  );
}

interface AliasPattern {
  regex: RegExp;
  /** Characters that are not wildcards: the more, the more specific the pattern. */
  literal: number;
  alias: ModelAliasConfig;
}

const patternsByAliases = new WeakMap<object, AliasPattern[]>();

/** The aliases whose name holds a `*`, most specific first. */
function aliasPatterns(aliases: Readonly<Record<string, ModelAliasConfig>>): AliasPattern[] {
  let patterns = patternsByAliases.get(aliases);
  if (!patterns) {
    patterns = Object.entries(aliases)
      .filter(([name]) => name.includes("*"))
      .map(([name, alias]) => ({
        regex: new RegExp(`^${name.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`),
        literal: name.replaceAll("*", "").length,
        alias,
      }))
      .sort((a, b) => b.literal - a.literal);
    patternsByAliases.set(aliases, patterns);
  }
  return patterns;
}

/**
 * An alias by exact name; else, for a name that is not `provider/model`, the most specific alias
 * pattern it matches (`claude-haiku-*` before `claude-*`): the names a client hard-codes (Claude
 * Code's main and background models) land where the user wants.
 */
function findAlias(name: string, providers: ReadonlyMap<string, ProviderEntry>, aliases: Readonly<Record<string, ModelAliasConfig>>): ModelAliasConfig | undefined {
  if (Object.hasOwn(aliases, name)) return aliases[name];
  if (splitRef(name, providers)) return undefined;
  return aliasPatterns(aliases).find((pattern) => pattern.regex.test(name))?.alias;
}

/** The alias's `model`, or each of its `deployments` (in config order). */
function primaries(alias: ModelAliasConfig): { ref: string; deployment?: Deployment }[] {
  if (!alias.deployments) return alias.model === undefined ? [] : [{ ref: alias.model }];
  const cooldownMs = alias.cooldownMs ?? DEFAULT_COOLDOWN_MS;
  return alias.deployments.map((d) => ({ ref: d.model, deployment: { ref: d.model, weight: d.weight ?? 1, cooldownMs } }));
}

export function resolveModel(
  name: string,
  providers: ReadonlyMap<string, ProviderEntry>,
  aliases: Readonly<Record<string, ModelAliasConfig>>,
): ResolvedModel {
  const alias = findAlias(name, providers, aliases);
  const refs: { ref: string; deployment?: Deployment }[] = alias ? [...primaries(alias), ...(alias.fallbacks ?? []).map((ref) => ({ ref }))] : [{ ref: name }];
  const resolved = refs.map(({ ref, deployment }) => {
    const split = splitRef(ref, providers);
    return split && deployment ? { ...split, deployment } : split;
  });
  if (!resolved[0]) throw notFound(name, providers, aliases);
  const candidates = resolved.filter((c): c is ModelCandidate => c !== undefined && c.provider.adapter !== undefined && !c.provider.unavailable);
  const first = candidates[0];
  if (!first) {
    const reasons = flatMapped(resolved, (c) => (c?.provider.unavailable ? [c.provider.unavailable] : []));
    throw new GatewayError(reasons.join("; ") || `no provider is available for "${name}"`, {
      status: 503,
      type: "api_error",
      code: "provider_unavailable",
      param: "model",
      provider: resolved[0].provider.name,
    });
  }
  return { requested: name, provider: first.provider, modelId: first.modelId, ...(alias ? { alias } : {}), candidates };
}
