import type { Context } from "hono";
import type { GatewayConfig } from "../../../core/config/index.ts";

interface ModelEntry {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** Aliases first, then every `provider/model` the config lists. */
export function listModels(config: GatewayConfig): ModelEntry[] {
  const created = 0;
  const aliases = Object.entries(config.models).map(([id, alias]) => ({ id, object: "model" as const, created, owned_by: alias.model.split("/")[0] ?? "gateway" }));
  const direct = Object.values(config.providers).flatMap((provider) =>
    (provider.models ?? []).map((model) => ({ id: `${provider.name}/${model}`, object: "model" as const, created, owned_by: provider.name })),
  );
  return [...aliases, ...direct];
}

export function modelsHandler(config: GatewayConfig) {
  const body = { object: "list", data: listModels(config) };
  return (c: Context) => c.json(body);
}
