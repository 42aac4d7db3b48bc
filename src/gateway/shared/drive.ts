/** Runs the agent loop for a prepared request, and keeps what the client's follow-up will need. */
import { runInModeBatches, type LoopBatches, type LoopOutcome } from "../../loop/index.ts";
import { resilientModel } from "../routing/resilient-model.ts";
import { DEFAULT_RETRY_POLICY } from "../routing/retry-policy.ts";
import { stepKeys } from "../state/hidden-steps.ts";
import { drainLoop } from "../observe/loop.ts";
import type { RequestObservation } from "../observe/request.ts";
import type { ToolSet } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import type { TraceCarrier } from "../../core/request-context.ts";
import type { ChatDeps } from "./deps.ts";
import type { PreparedRequest } from "./door.ts";
import { loopOptionsFor } from "./loop-setup.ts";

/** What a request's loop runs with besides the request: its id for log lines, its observation, the client's trace context. */
export interface LoopRun {
  requestId?: string;
  observation?: RequestObservation;
  /** The client's W3C trace context, for the MCP servers the loop calls (only while the gateway does not trace). */
  trace?: TraceCarrier;
}

/** The tools with the client's trace context in each call's context (the request context does not carry it: src/gateway/http/app.ts). */
function carryingTrace(tools: ToolSet, trace: TraceCarrier): ToolSet {
  return {
    definitions: (target) => tools.definitions(target),
    has: (name) => tools.has(name),
    call: (call, context) => tools.call(call, extend(context, { trace })),
  };
}

/** A streamed answer's loop (the SSE pump drives it, and tells the request's observation of each event). */
export function startLoop(prepared: PreparedRequest, deps: ChatDeps, signal: AbortSignal, run: LoopRun = {}): LoopBatches {
  return loopOf(prepared, deps, true, signal, run);
}

/** A whole answer's loop, run to its outcome (observed as it goes). */
export function runWhole(prepared: PreparedRequest, deps: ChatDeps, signal: AbortSignal, run: LoopRun = {}): Promise<LoopOutcome> {
  return drainLoop(loopOf(prepared, deps, false, signal, run), run.observation);
}

function loopOf(prepared: PreparedRequest, deps: ChatDeps, stream: boolean, signal: AbortSignal, run: LoopRun): LoopBatches {
  const { requestId, observation } = run;
  const schemaTarget = prepared.model.provider.schemaTarget;
  const tools = run.trace ? carryingTrace(prepared.tools, run.trace) : prepared.tools;
  return runInModeBatches({
    model: resilientModel({
      candidates: prepared.model.candidates,
      tools: prepared.tools,
      schemaTarget,
      policy: deps.retryPolicy ?? DEFAULT_RETRY_POLICY,
      logger: deps.logger,
      ...(requestId === undefined ? {} : { requestId }),
      ...(deps.deployments ? { deployments: deps.deployments } : {}),
      ...(observation ? { observer: observation } : {}),
    }),
    schemaTarget,
    request: prepared.request,
    // Each tool call in its own span when the request is traced.
    tools: observation ? observation.tools(tools) : tools,
    stream,
    maxIterations: deps.config.gateway.maxIterations,
    // The plan's turns, final answer, compaction, tool search and tool-policy hook.
    ...(prepared.plan ? loopOptionsFor(prepared.plan, prepared.model, prepared.tools, deps, prepared.tenant, requestId === undefined ? {} : { requestId }) : {}),
    signal,
  }, prepared.plan?.mode);
}

/**
 * Keeps the steps the client did not see, for its follow-up request: after a turn that handed
 * client tools back (under their call ids), and after MCP tools ran (also under the signatures
 * of the thinking blocks the answer showed, which the client sends back with it).
 */
export function rememberHiddenSteps(outcome: LoopOutcome, deps: ChatDeps, tenant: string, requestId?: string): Promise<void> | undefined {
  const keys = outcome.stopReason === "client_tools" ? outcome.clientToolCalls.map((call) => call.id) : [];
  if (outcome.tools.length > 0) {
    for (const message of outcome.newMessages) {
      if (message.role === "assistant") keys.push(...stepKeys(message, { calls: false, signatures: true }));
    }
  }
  // Nothing to keep (most answers): no promise at all.
  return keys.length > 0 ? deps.hiddenSteps.save(tenant, keys, outcome.newMessages, requestId) : undefined;
}
