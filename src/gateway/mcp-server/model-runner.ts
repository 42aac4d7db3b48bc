/**
 * Model calls made by the MCP surface itself (the `chat` tool's agent loop, and sampling
 * answered by the gateway): the model name resolved like in /v1/chat/completions, with the same
 * retries and fallbacks, and an alias's deployments spread and cooled down by the same router.
 */
import type { ChatRequest, ToolSet } from "../../core/index.ts";
import type { GatewayConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import { runInMode, type LoopEvent, type LoopMode, type LoopOptions, type LoopOutcome, type PlanOptions, type SteeringQueue } from "../../loop/index.ts";
import { routedModel, type DeploymentRouter } from "../routing/deployments.ts";
import type { ProviderEntry } from "../routing/providers.ts";
import { resilientModel, type CandidateOptions } from "../routing/resilient-model.ts";
import type { ResolvedModel } from "../routing/resolve-model.ts";

export interface ModelDeps {
  config: GatewayConfig;
  providers: ReadonlyMap<string, ProviderEntry>;
  logger: Logger;
  /** The doors' router (the runtime's): without it, deployments are tried in config order, never cooled down. */
  deployments?: DeploymentRouter;
}

export const NO_TOOLS: ToolSet = {
  definitions: () => [],
  has: () => false,
  call: async (call) => ({ type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: "no tools" }], isError: true }),
};

/** The model's candidates, an alias's deployments in the order this call tries them. Throws (rejects) for an unknown model. */
export async function resolve(name: string, deps: ModelDeps): Promise<ResolvedModel> {
  return routedModel(name, deps.providers, deps.config.models, deps.deployments);
}

/** Retries, fallbacks and the deployments' hooks of the MCP surface's model calls. */
export function callOptions(model: ResolvedModel, deps: ModelDeps): Pick<CandidateOptions, "candidates" | "policy" | "logger" | "deployments"> {
  return { candidates: model.candidates, policy: deps.config.gateway.retries, logger: deps.logger, ...(deps.deployments ? { deployments: deps.deployments } : {}) };
}

/** Runs the agent loop (not streamed) and yields its events; returns the outcome. */
export function runLoop(
  model: ResolvedModel,
  request: ChatRequest,
  tools: ToolSet,
  deps: ModelDeps,
  signal: AbortSignal,
  /** Messages the user sends the running loop (the chat tool's `steer`). */
  steering?: SteeringQueue,
  /** The plan's options (loop-setup.ts loopOptionsFor). */
  loop: Partial<Pick<LoopOptions, "maxIterations" | "finalAnswer" | "context" | "toolSearch" | "hooks">> = {},
  /** Plan-then-execute, with its review (the chat tool's elicitation). */
  mode?: { mode: LoopMode; plan?: PlanOptions },
): AsyncGenerator<LoopEvent, LoopOutcome> {
  const schemaTarget = model.provider.schemaTarget;
  return runInMode({
    model: resilientModel({ ...callOptions(model, deps), tools, schemaTarget }),
    schemaTarget,
    request,
    tools,
    stream: false,
    maxIterations: deps.config.gateway.maxIterations,
    ...loop,
    signal,
    ...(steering ? { steering } : {}),
  }, mode?.mode, mode?.plan);
}
