import type { Context } from "hono";
import type { CapabilitiesConfig, GatewayConfig, ModelAliasConfig } from "../../../core/config/index.ts";
import { GatewayError } from "../../../core/index.ts";
import { checkModel, modelAllowed, policyOf, type KeyPolicy } from "../../shared/keys.ts";
import { capabilitiesOf } from "../../shared/capabilities.ts";
import { callerKey } from "../auth.ts";

interface ModelEntry {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
  /** What the config says the model can do (alias, then provider patterns); absent when it says nothing. */
  capabilities?: CapabilitiesConfig;
}

/** The capabilities of `provider/model` (and its alias), as an entry's field. */
function capabilityField(config: GatewayConfig, target: string, alias?: ModelAliasConfig): { capabilities?: CapabilitiesConfig } {
  const slash = target.indexOf("/");
  const capabilities = slash > 0 ? capabilitiesOf(config, target.slice(0, slash), target.slice(slash + 1), alias) : { ...(alias?.capabilities ?? {}) };
  return Object.keys(capabilities).length > 0 ? { capabilities } : {};
}

/** An entry in Anthropic's shape, for clients that ask in its protocol (`anthropic-version`). */
function anthropicEntry(entry: ModelEntry) {
  return { type: "model", id: entry.id, display_name: entry.id, created_at: new Date(entry.created * 1000).toISOString(), ...(entry.capabilities ? { capabilities: entry.capabilities } : {}) };
}

const asksAnthropic = (c: Context) => c.req.header("anthropic-version") !== undefined;

/** Aliases first (pattern aliases such as `claude-*` are routes, not models), then every `provider/model` the config lists. */
export function listModels(config: GatewayConfig): ModelEntry[] {
  const created = 0;
  const aliases = Object.entries(config.models)
    .filter(([id]) => !id.includes("*"))
    .map(([id, alias]) => {
      const target = alias.model ?? alias.deployments?.[0]?.model ?? "";
      return { id, object: "model" as const, created, owned_by: target.split("/")[0] || "gateway", ...capabilityField(config, target, alias) };
    });
  const direct = Object.values(config.providers).flatMap((provider) =>
    (provider.models ?? []).map((model) => ({ id: `${provider.name}/${model}`, object: "model" as const, created, owned_by: provider.name, ...capabilityField(config, `${provider.name}/${model}`) })),
  );
  return [...aliases, ...direct];
}

/** The list bodies (OpenAI's and Anthropic's) of these models. */
function listBodies(models: ModelEntry[]) {
  return {
    openai: { object: "list", data: models },
    anthropic: { data: models.map(anthropicEntry), has_more: false, first_id: models[0]?.id ?? null, last_id: models.at(-1)?.id ?? null },
  };
}

/** Every configured model; a key with `models` sees only those it may use. */
export function modelsHandler(config: GatewayConfig) {
  const models = listModels(config);
  const all = listBodies(models);
  const byKey = new WeakMap<KeyPolicy, ReturnType<typeof listBodies>>();
  return (c: Context) => {
    const key = policyOf(config, callerKey(c));
    let bodies = all;
    if (key?.models !== undefined) {
      bodies = byKey.get(key) ?? listBodies(models.filter((entry) => modelAllowed(key, entry.id)));
      byKey.set(key, bodies);
    }
    return c.json(asksAnthropic(c) ? bodies.anthropic : bodies.openai);
  };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * `GET /v1/models/{id}` (the openai client's `models.retrieve`). Ids hold a slash
 * (`openai/gpt-4o`), sent encoded (`%2F`) by the SDKs or raw. A listed id or alias is found; so
 * is any `provider/model` of a configured provider, since the gateway routes every one of them.
 */
export function modelHandler(config: GatewayConfig) {
  const listed = new Map(listModels(config).map((entry) => [entry.id, entry]));
  return (c: Context) => {
    const id = safeDecode(c.req.path.slice("/v1/models/".length));
    checkModel(policyOf(config, callerKey(c)), id);
    const slash = id.indexOf("/");
    const provider = slash > 0 ? id.slice(0, slash) : undefined;
    const entry = listed.get(id) ?? (provider !== undefined && slash < id.length - 1 && Object.hasOwn(config.providers, provider) ? { id, object: "model" as const, created: 0, owned_by: provider } : undefined);
    if (!entry) throw GatewayError.notFound(`The model "${id}" does not exist`, "model_not_found", "model");
    return c.json(asksAnthropic(c) ? anthropicEntry(entry) : entry);
  };
}
