/**
 * What a gateway key may use (`gateway.apiKeys` entries with `models` and `mcpServers`): the
 * policy of the key a request presents, and the checks every door, `/v1/models` and `/mcp` make
 * with it. A model or server outside the key is a 403 (`permission_error`) naming what the key
 * may use; without a selection of its own, a request gets the key's servers only.
 */
import { createHash } from "node:crypto";
import { GatewayError } from "../../core/index.ts";
import type { GatewayConfig, KeyPolicy } from "../../core/config/index.ts";
import type { GatewayTools } from "./deps.ts";

export type { KeyPolicy };

const digest = (key: string) => createHash("sha256").update(key).digest("base64url");

const policiesByConfig = new WeakMap<object, Map<string, KeyPolicy>>();

/**
 * The policy of the key the caller presented (by its digest: the lookup never compares the key
 * itself), or undefined: no keys configured, or a key that authentication has refused anyway.
 */
export function policyOf(config: GatewayConfig, key: string | undefined): KeyPolicy | undefined {
  const policies = config.gateway.keyPolicies;
  if (key === undefined || policies.length === 0) return undefined;
  let byDigest = policiesByConfig.get(config.gateway);
  if (!byDigest) {
    byDigest = new Map();
    for (const policy of policies) if (!byDigest.has(digest(policy.key))) byDigest.set(digest(policy.key), policy);
    policiesByConfig.set(config.gateway, byDigest);
  }
  return byDigest.get(digest(key));
}

/** The key a raw request presents (`Authorization: Bearer`, else `x-api-key`), as callerKey reads it. */
export function presentedKey(request: Request): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1]?.trim();
  if (bearer) return bearer;
  const apiKey = request.headers.get("x-api-key")?.trim();
  return apiKey === "" ? undefined : apiKey;
}

/** A stable, non-reversible id of a key: what its limit counters are kept under. */
export function keyId(policy: KeyPolicy): string {
  return digest(policy.key).slice(0, 16);
}

const patternsByPolicy = new WeakMap<KeyPolicy, RegExp[]>();

function modelPatterns(policy: KeyPolicy): RegExp[] {
  let patterns = patternsByPolicy.get(policy);
  if (!patterns) {
    patterns = (policy.models ?? []).map((pattern) => new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`));
    patternsByPolicy.set(policy, patterns);
  }
  return patterns;
}

/** Whether the key may ask for this model name (an alias or `provider/model`, as the client wrote it). */
export function modelAllowed(policy: KeyPolicy | undefined, name: string): boolean {
  if (policy?.models === undefined) return true;
  return modelPatterns(policy).some((pattern) => pattern.test(name));
}

const listOf = (names: readonly string[]) => (names.length === 0 ? "none" : names.join(", "));

/** What to tell a key about a model it may not use. */
export function modelRefusal(policy: KeyPolicy, name: string): string {
  return `The API key "${policy.name}" may not use the model "${name}"; it may use: ${listOf(policy.models ?? [])}`;
}

/** 403 unless the key may use the model. */
export function checkModel(policy: KeyPolicy | undefined, name: string, param = "model"): void {
  if (!policy || modelAllowed(policy, name)) return;
  throw new GatewayError(modelRefusal(policy, name), { status: 403, type: "permission_error", code: "model_not_allowed", param });
}

/** The names among `servers` the key may not use (none when it has no `mcpServers`). */
export function serversOutside(policy: KeyPolicy | undefined, servers: readonly string[]): string[] {
  const allowed = policy?.mcpServers;
  return allowed === undefined ? [] : servers.filter((name) => !allowed.includes(name));
}

/** What to tell a key about MCP servers it may not use. */
export function serversRefusal(policy: KeyPolicy, outside: readonly string[]): string {
  return `The API key "${policy.name}" may not use the MCP server${outside.length === 1 ? "" : "s"} ${outside.map((s) => `"${s}"`).join(", ")}; it may use: ${listOf(policy.mcpServers ?? [])}`;
}

/** 403 when a selection (`x-mcp-servers`, Responses `mcp` tools) names a server outside the key. */
export function checkServers(policy: KeyPolicy | undefined, servers: readonly string[], param: string): void {
  const outside = serversOutside(policy, servers);
  if (!policy || outside.length === 0) return;
  throw new GatewayError(serversRefusal(policy, outside), { status: 403, type: "permission_error", code: "mcp_server_not_allowed", param });
}

/** A server selection narrowed to the key's servers (undefined: every server, when neither narrows). */
export function narrowToKey(policy: KeyPolicy | undefined, servers: readonly string[] | undefined): readonly string[] | undefined {
  const allowed = policy?.mcpServers;
  if (allowed === undefined) return servers;
  return servers === undefined ? allowed : servers.filter((name) => allowed.includes(name));
}

/** Whether the key may use this MCP server. */
export function serverAllowed(policy: KeyPolicy | undefined, server: string): boolean {
  return policy?.mcpServers === undefined || policy.mcpServers.includes(server);
}

/** Whether the key has a request or token limit. */
export function hasLimits(policy: KeyPolicy | undefined): policy is KeyPolicy {
  return policy !== undefined && (policy.rpm !== undefined || policy.tpm !== undefined);
}

/**
 * 403 unless every server a request selects (`x-mcp-servers`, its own selection such as
 * Responses' `mcp` tools) is one of the key's.
 */
export function checkSelection(policy: KeyPolicy | undefined, header: string | undefined, selected: readonly string[] | undefined): void {
  if (policy?.mcpServers === undefined) return;
  const named = header === undefined || header.trim().toLowerCase() === "none" ? [] : header.split(",").map((s) => s.trim()).filter((s) => s !== "");
  checkServers(policy, [...new Set(named)], "x-mcp-servers");
  if (selected) checkServers(policy, selected, "tools");
}

/** The gateway's tools as a key sees them: only its servers', whatever the selection. */
export function keyTools(tools: GatewayTools, policy: KeyPolicy | undefined): GatewayTools {
  const allowed = policy?.mcpServers;
  if (allowed === undefined) return tools;
  const exposed = (tools as GatewayTools & { exposed?: (server: string, tool: string) => string | undefined }).exposed;
  return {
    serverNames: () => tools.serverNames().filter((name) => allowed.includes(name)),
    select: (servers) => tools.select(narrowToKey(policy, servers)),
    ...(tools.origin ? { origin: (name: string) => tools.origin!(name) } : {}),
    ...(exposed ? { exposed: (server: string, tool: string) => exposed.call(tools, server, tool) } : {}),
  };
}
