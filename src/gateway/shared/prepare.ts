/**
 * From a door's parsed request to everything the loop needs: routed to a provider, tools
 * selected, hidden steps restored, alias defaults applied. Every refusal is a GatewayError
 * naming the bad field.
 */
import { extend } from "../../core/extend.ts";
import { GatewayError, type ChatRequest, type Message } from "../../core/index.ts";
import { routedModel } from "../routing/deployments.ts";
import type { ResolvedModel } from "../routing/resolve-model.ts";
import type { KeyPolicy } from "../../core/config/index.ts";
import type { ChatDeps } from "./deps.ts";
import type { ParsedRequest, PreparedRequest } from "./door.ts";
import { checkServers } from "./keys.ts";
import { applyPlan, planLoop, resultLimits } from "./loop-setup.ts";

/**
 * `x-mcp-servers: a,b` or `none`; otherwise the alias's selection; otherwise every server. The
 * header only narrows: an alias's `mcpServers` is a boundary it cannot widen.
 */
export function selectServers(header: string | undefined, model: ResolvedModel, known: readonly string[]): readonly string[] | undefined {
  const allowed = model.alias?.mcpServers;
  if (header === undefined || header.trim() === "") return allowed;
  if (header.trim().toLowerCase() === "none") return [];
  const names = [...new Set(header.split(",").map((s) => s.trim()).filter((s) => s !== ""))];
  const outside = allowed ? names.filter((name) => known.includes(name) && !allowed.includes(name)) : [];
  if (outside.length > 0) {
    throw GatewayError.invalidRequest(
      `x-mcp-servers names servers outside the model "${model.requested}"'s selection: ${outside.join(", ")} (allowed: ${allowed!.join(", ") || "none"})`,
      "x-mcp-servers",
      "mcp_server_not_allowed",
    );
  }
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw GatewayError.invalidRequest(
      `x-mcp-servers names unknown MCP servers: ${unknown.join(", ")} (configured: ${known.join(", ") || "none"})`,
      "x-mcp-servers",
      "unknown_mcp_server",
    );
  }
  return names;
}

/** The servers both selections allow (undefined: no selection, every server). */
function narrow(a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.filter((name) => a.includes(name));
}

function withAliasDefaults(request: ChatRequest, model: ResolvedModel): ChatRequest {
  const alias = model.alias;
  if (!alias) return request;
  const messages: Message[] =
    alias.system && !request.messages.some((m) => m.role === "system")
      ? [{ role: "system", content: [{ type: "text", text: alias.system }] }, ...request.messages]
      : request.messages;
  // By assignment: spreads cost microseconds on Node 20 (src/core/extend.ts).
  const out = extend(request, { messages });
  if (request.temperature === undefined && alias.temperature !== undefined) out.temperature = alias.temperature;
  if (request.maxTokens === undefined && alias.maxTokens !== undefined) out.maxTokens = alias.maxTokens;
  return out;
}

/** Refuses a conversation longer than `gateway.maxMessages`, before the full validation walks it. */
export function checkMessageCount(list: unknown, max: number, field: string): void {
  if (Array.isArray(list) && list.length > max) {
    throw GatewayError.invalidRequest(`Invalid request: ${field}: at most ${max} messages are accepted, got ${list.length}`, field, "too_many_messages");
  }
}

/** Plan mode's steps run inside the gateway: the client's own tools have no part in them (src/loop/plan-mode.ts). */
const PLAN_MODE_CLIENT_TOOLS = "the request's own tools are not offered in plan mode";

/**
 * The request routed, its servers chosen, its plan made and its hidden steps restored; at once
 * (not a Promise) unless the routing or the restore had to wait (a shared store): an async
 * function's promise and its await were a microtask or more on every request.
 */
export function prepareRequest<P extends ParsedRequest>(
  parsed: P,
  serversHeader: string | undefined,
  tenant: string,
  deps: ChatDeps,
  key?: KeyPolicy,
  requestId?: string,
): PreparedRequest<P> | Promise<PreparedRequest<P>> {
  const routed = routedModel(parsed.model, deps.providers, deps.config.models, deps.deployments, requestId);
  const prepare = (model: ResolvedModel) => prepareRouted(parsed, model, serversHeader, tenant, deps, key, requestId);
  return routed instanceof Promise ? routed.then(prepare) : prepare(routed);
}

function prepareRouted<P extends ParsedRequest>(
  parsed: P,
  model: ResolvedModel,
  serversHeader: string | undefined,
  tenant: string,
  deps: ChatDeps,
  key: KeyPolicy | undefined,
  requestId: string | undefined,
): PreparedRequest<P> | Promise<PreparedRequest<P>> {
  const known = deps.tools.serverNames();
  const options = parsed.loop ?? {};
  if (options.mcpServers) checkServers(key, options.mcpServers, "mcp_gateway.mcp_servers");
  const servers = narrow(
    narrow(selectServers(serversHeader, model, known), parsed.mcpServers && selectServers(parsed.mcpServers.join(","), model, known)),
    options.mcpServers && (options.mcpServers.length === 0 ? [] : selectServers(options.mcpServers.join(","), model, known)),
  );
  const plan = planLoop(deps.config, model, options, key);
  const fit = (messages: Message[]): PreparedRequest<P> => {
    const fitted = applyPlan(plan, model, withAliasDefaults(extend(parsed.request, { messages, model: model.modelId }), model), deps.tools.select(servers), options, resultLimits(deps.config, deps.tools));
    return {
      tenant,
      parsed,
      model,
      request: fitted.request,
      tools: fitted.tools,
      warnings: plan.mode === "plan" && (fitted.request.tools?.length ?? 0) > 0 ? [...fitted.warnings, PLAN_MODE_CLIENT_TOOLS] : fitted.warnings,
      plan,
    };
  };
  const restored = deps.hiddenSteps.restore(tenant, parsed.request.messages, requestId);
  return restored instanceof Promise ? restored.then(fit) : fit(restored);
}
