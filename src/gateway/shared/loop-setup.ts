/**
 * What a request's agent loop may do, from the config (the gateway's defaults, the alias's own
 * settings, the model's capabilities, the tool policy), the key and the request's own options
 * (`mcp_gateway` in the body, or headers), which only narrow. Shared by the HTTP doors and the
 * MCP `chat` tool.
 */
import { GatewayError, type ChatRequest, type Message, type ToolCallBlock, type ToolSet } from "../../core/index.ts";
import type { CapabilitiesConfig, ContextConfig, GatewayConfig, KeyPolicy, ToolSearchConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { CompactionMemory, CompactionReport, CompactionState, ContextOptions, LoopHooks, LoopMode, LoopOptions, ToolSearchReport } from "../../loop/index.ts";
import { filterTools, limitResults, patternMatcher } from "../../loop/tool-views.ts";
import type { ProviderEntry } from "../routing/providers.ts";
import { resilientModel } from "../routing/resilient-model.ts";
import { resolveModel, type ResolvedModel } from "../routing/resolve-model.ts";
import type { StateStore } from "../state/store.ts";
import { modelCapabilities } from "./capabilities.ts";
import type { RequestLoopOptions } from "./loop-options.ts";
import { compilePolicy, DENIED_BY_POLICY, NEEDS_APPROVAL, type ToolHints, type ToolPolicy } from "./tool-policy.ts";

/* ------------------------------------------------------------------ the plan */

/** What one request's loop may do. */
export interface LoopPlan {
  maxIterations: number;
  finalAnswer: boolean;
  capabilities: CapabilitiesConfig;
  /** Compaction settings (maxTokens defaulted from the model's context window); undefined: strategy off. */
  context?: Required<Pick<ContextConfig, "threshold" | "strategy" | "keepRecentTurns">> & Pick<ContextConfig, "maxTokens" | "summarizer">;
  toolSearch?: Required<Pick<ToolSearchConfig, "whenOverTokens" | "maxResults" | "native">>;
  policy: ToolPolicy;
  /** The key's calls need no approval. */
  autoApprove: boolean;
  /** The agent loop, or plan-then-execute: the request's `mode`, else the alias's. */
  mode: LoopMode;
}

/**
 * The loop plan of a request: the alias's settings over the gateway's, and the request's options
 * within them (a request may lower max_iterations, not raise it: 400).
 */
export function planLoop(config: GatewayConfig, model: ResolvedModel, options: RequestLoopOptions, key: KeyPolicy | undefined): LoopPlan {
  const gateway = config.gateway;
  const alias = model.alias;
  const capabilities = modelCapabilities(config, model);
  const allowed = alias?.maxIterations ?? gateway.maxIterations;
  if (options.maxIterations !== undefined && options.maxIterations > allowed) {
    throw GatewayError.invalidRequest(
      `mcp_gateway.max_iterations: at most ${allowed} for the model "${model.requested}" (${alias?.maxIterations !== undefined ? `models.${model.requested}.maxIterations` : "gateway.maxIterations"}); a request can lower it, not raise it`,
      "mcp_gateway.max_iterations",
      "max_iterations_not_allowed",
    );
  }
  const context = { ...(gateway.context ?? {}), ...(alias?.context ?? {}) };
  const strategy = context.strategy ?? "trim";
  const maxTokens = context.maxTokens ?? capabilities.contextWindow;
  const search = alias?.toolSearch ?? gateway.toolSearch;
  return {
    maxIterations: options.maxIterations ?? allowed,
    finalAnswer: options.finalAnswer ?? alias?.finalAnswer ?? gateway.finalAnswer,
    capabilities,
    ...(strategy === "off"
      ? {}
      : {
          context: {
            strategy,
            threshold: context.threshold ?? 0.8,
            keepRecentTurns: context.keepRecentTurns ?? 2,
            ...(maxTokens === undefined ? {} : { maxTokens }),
            ...(context.summarizer === undefined ? {} : { summarizer: context.summarizer }),
          },
        }),
    // Anthropic loads deferred tools with its own search; every other provider gets find_tools.
    ...(search ? { toolSearch: { whenOverTokens: search.whenOverTokens, maxResults: search.maxResults ?? 8, native: (search.native ?? true) && model.provider.type === "anthropic" } } : {}),
    policy: compilePolicy(gateway.toolPolicy, alias?.toolPolicy),
    autoApprove: key?.autoApprove === true,
    mode: options.mode ?? alias?.mode ?? "agent",
  };
}

const NO_TOOLS: ToolSet = {
  definitions: () => [],
  has: () => false,
  call: async (call) => ({ type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: `Error: no tools are available to this model.` }], isError: true }),
};

/** The path of the first image a client sent, if any. */
function firstImage(messages: readonly Message[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    for (const [j, block] of message.content.entries()) {
      if (block.type === "image") return `messages[${i}].content[${j}]`;
      if (block.type === "tool_result" && block.content.some((part) => part.type === "image")) return `messages[${i}].content[${j}]`;
    }
  }
  return undefined;
}

export interface ToolContext {
  /** Per gateway tool: its server's result limit. */
  maxResultTokens(name: string): number | undefined;
}

/** Each gateway tool's result limit: its server's `maxResultTokens`, else the gateway's. */
export function resultLimits(config: GatewayConfig, tools: { origin?(name: string): { server: string } | undefined }): ToolContext {
  const limits = new Map(config.servers.map((s) => [s.name, s.maxResultTokens]));
  return {
    maxResultTokens: (name) => {
      const server = tools.origin?.(name)?.server;
      return (server === undefined ? undefined : limits.get(server)) ?? config.gateway.maxResultTokens;
    },
  };
}

/**
 * The request and tools as the plan allows: a model without tool support gets no MCP tools (and
 * a request with its own tools is refused), one without vision no images (refused), one without
 * reasoning no reasoning options, a capped output its cap; tools narrowed by the policy's deny
 * and the request's allow/deny, their results limited. Returns warnings for the answer's header.
 */
export function applyPlan(
  plan: LoopPlan,
  model: ResolvedModel,
  request: ChatRequest,
  tools: ToolSet,
  options: RequestLoopOptions,
  context: ToolContext,
): { request: ChatRequest; tools: ToolSet; warnings: string[] } {
  const warnings: string[] = [];
  const caps = plan.capabilities;
  const name = model.requested;
  if (caps.tools === false && (request.tools?.length ?? 0) > 0) {
    throw GatewayError.invalidRequest(`The model "${name}" cannot call tools (its capabilities say tools: false): send the request without tools, or use another model`, "tools", "tools_not_supported");
  }
  if (caps.vision === false) {
    const at = firstImage(request.messages);
    if (at) throw GatewayError.invalidRequest(`The model "${name}" cannot see images (its capabilities say vision: false): ${at} is an image; send text only, or use a model with vision`, at, "images_not_supported");
  }
  let out = request;
  if (caps.reasoning === false && out.reasoning !== undefined && !out.reasoning.translated) {
    const { reasoning: _r, ...rest } = out;
    out = rest;
    warnings.push(`reasoning options left out: the model "${name}" has no reasoning (capabilities.reasoning: false)`);
  } else if (caps.reasoning === false && out.reasoning?.translated) {
    const { reasoning: _r, ...rest } = out;
    out = rest;
  }
  if (caps.maxOutputTokens !== undefined && out.maxTokens !== undefined && out.maxTokens > caps.maxOutputTokens) {
    warnings.push(`max tokens lowered from ${out.maxTokens} to ${caps.maxOutputTokens}, the model's maximum output (capabilities.maxOutputTokens)`);
    out = { ...out, maxTokens: caps.maxOutputTokens };
  }
  if (caps.tools === false) return { request: out, tools: NO_TOOLS, warnings };
  let view = tools;
  const policy = plan.policy;
  const allow = options.tools?.allow ? patternMatcher(options.tools.allow) : undefined;
  const deny = options.tools?.deny ? patternMatcher(options.tools.deny) : undefined;
  if (policy.active || allow || deny) {
    view = filterTools(
      view,
      (tool) => !policy.denied(tool) && (allow === undefined || allow(tool)) && (deny === undefined || !deny(tool)),
      (tool) => (policy.denied(tool) ? DENIED_BY_POLICY(tool) : `Error: the tool "${tool}" is not among the tools this request allows (mcp_gateway.tools).`),
    );
  }
  view = limitResults(view, (tool) => ({ maxTokens: context.maxResultTokens(tool), vision: caps.vision }));
  return { request: out, tools: view, warnings };
}

/* ------------------------------------------------------------------ the loop's options */

export interface LoopDeps {
  config: GatewayConfig;
  providers: ReadonlyMap<string, ProviderEntry>;
  logger: Logger;
  /** Where compaction states are kept (the state store's table), per tenant. */
  compactions?: StateStore<CompactionState> | undefined;
  /** The MCP annotations of a gateway tool (for `toolPolicy.approve.annotations`). */
  toolHints?: ((name: string) => ToolHints | undefined) | undefined;
}

/**
 * Asks a person to approve a call (the MCP `chat` tool: an elicitation). Resolves true to run it;
 * a string is the error result the model gets instead.
 */
export type ApprovalAsker = (call: ToolCallBlock) => Promise<true | string>;

/** The compaction memory of one tenant over the store's table. */
function memoryFor(store: StateStore<CompactionState>, tenant: string): CompactionMemory {
  return { get: (key) => store.get(`${tenant}:${key}`), set: (key, state) => store.set(`${tenant}:${key}`, state) };
}

/** The summarizer model of a plan: `context.summarizer`, else the request's own model. */
function summarizerOf(plan: LoopPlan, model: ResolvedModel, deps: LoopDeps, requestId?: string): ContextOptions["summarizer"] {
  let resolved = model;
  if (plan.context?.summarizer !== undefined) {
    try {
      resolved = resolveModel(plan.context.summarizer, deps.providers, deps.config.models);
    } catch (error) {
      deps.logger.warn({ requestId, summarizer: plan.context.summarizer, err: (error as Error).message }, "context.summarizer is not usable: compaction trims instead");
      return undefined;
    }
  }
  const model_ = resilientModel({ candidates: resolved.candidates, tools: NO_TOOLS, schemaTarget: resolved.provider.schemaTarget, policy: deps.config.gateway.retries, logger: deps.logger, ...(requestId === undefined ? {} : { requestId }) });
  return { model: model_, modelId: resolved.modelId };
}

/**
 * The agent loop's options for a plan: turns, final answer, compaction, tool search, and the
 * tool policy's approvals as a `beforeToolCall` hook (a call that needs approval is asked for
 * with `ask`, else refused with a result saying so — unless the key auto-approves).
 */
export function loopOptionsFor(
  plan: LoopPlan,
  model: ResolvedModel,
  tools: ToolSet,
  deps: LoopDeps,
  tenant: string,
  extra: { requestId?: string; ask?: ApprovalAsker; hooks?: LoopHooks } = {},
): Pick<LoopOptions, "maxIterations" | "finalAnswer" | "context" | "toolSearch" | "hooks"> {
  const context: ContextOptions | undefined = plan.context
    ? {
        threshold: plan.context.threshold,
        strategy: plan.context.strategy,
        keepRecentTurns: plan.context.keepRecentTurns,
        ...(plan.context.maxTokens === undefined ? {} : { maxTokens: plan.context.maxTokens }),
        ...(plan.context.strategy === "summarize" ? { summarizer: summarizerOf(plan, model, deps, extra.requestId) } : {}),
        ...(deps.compactions ? { memory: memoryFor(deps.compactions, tenant) } : {}),
      }
    : undefined;
  const policy = plan.policy;
  const approvals = policy.active && !plan.autoApprove;
  const hooks: LoopHooks = { ...extra.hooks };
  if (approvals) {
    const before = extra.hooks?.beforeToolCall;
    hooks.beforeToolCall = async (ctx) => {
      const verdict = await before?.(ctx);
      if (verdict) return verdict;
      const name = ctx.call.name;
      // Only the gateway's own tools (not its search tool, nor a client's).
      if (!tools.has(name)) return undefined;
      if (policy.denied(name)) return { deny: `it is not allowed by the gateway's tool policy` };
      if (!policy.needsApproval(name, deps.toolHints?.(name))) return undefined;
      if (!extra.ask) return { deny: NEEDS_APPROVAL(name).replace(/^Error: /, "") };
      const answer = await extra.ask(ctx.call);
      return answer === true ? undefined : { deny: answer.replace(/^Error: /, "") };
    };
  }
  return {
    maxIterations: plan.maxIterations,
    finalAnswer: plan.finalAnswer,
    ...(context ? { context } : {}),
    ...(plan.toolSearch ? { toolSearch: { ...plan.toolSearch } } : {}),
    ...(Object.keys(hooks).length > 0 ? { hooks } : {}),
  };
}

/** What an outcome says of compaction, tool search and final_answer. */
type LoopReportSource = { compaction?: CompactionReport; toolSearch?: ToolSearchReport; finalAnswer?: boolean };

/**
 * What compaction, tool search and final_answer did, as the fields of `mcp_gateway` and the log
 * line, added to `into` (assigned, not spread: see src/core/extend.ts), which it returns.
 */
export function addLoopReport<T extends Record<string, unknown>>(outcome: LoopReportSource | undefined, into: T): T {
  if (!outcome) return into;
  const c = outcome.compaction;
  const s = outcome.toolSearch;
  const out = into as Record<string, unknown>;
  if (c) {
    out.compacted = {
      reason: c.reason,
      strategy: c.strategy,
      turns_removed: c.turnsRemoved,
      messages_removed: c.messagesRemoved,
      results_shortened: c.resultsShortened,
      tokens_before: c.tokensBefore,
      tokens_after: c.tokensAfter,
      summarized: c.summarized,
    };
  }
  if (s) out.tool_search = { tools: s.tools, offered: s.offered, found: s.found, searches: s.searches, tokens_saved: s.tokensSaved };
  if (outcome.finalAnswer) out.final_answer = true;
  return into;
}
