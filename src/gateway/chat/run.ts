import { randomUUID } from "node:crypto";
import { runAgentLoop, type LoopEvent, type LoopOutcome } from "../../loop/index.ts";
import { resilientModel } from "../routing/resilient-model.ts";
import { DEFAULT_RETRY_POLICY } from "../routing/retry-policy.ts";
import type { ChatDeps } from "./context.ts";
import type { PreparedChat } from "./prepare.ts";

export interface ResponseMeta {
  id: string;
  created: number;
}

export function newResponseMeta(): ResponseMeta {
  // randomUUID draws from a pooled entropy cache; randomBytes per response was measurable.
  return { id: `chatcmpl-${randomUUID().replaceAll("-", "")}`, created: Math.floor(Date.now() / 1000) };
}

export function startLoop(prepared: PreparedChat, deps: ChatDeps, stream: boolean, signal: AbortSignal): AsyncGenerator<LoopEvent, LoopOutcome> {
  const schemaTarget = prepared.model.provider.schemaTarget;
  return runAgentLoop({
    model: resilientModel({
      candidates: prepared.model.candidates,
      tools: prepared.tools,
      schemaTarget,
      policy: deps.retryPolicy ?? DEFAULT_RETRY_POLICY,
      logger: deps.logger,
    }),
    schemaTarget,
    request: prepared.request,
    tools: prepared.tools,
    stream,
    maxIterations: deps.config.gateway.maxIterations,
    signal,
  });
}

/** After a turn that handed client tools back: keep the hidden steps for the follow-up request. */
export async function rememberHiddenSteps(outcome: LoopOutcome, deps: ChatDeps, tenant: string): Promise<void> {
  if (outcome.stopReason !== "client_tools") return;
  await deps.hiddenSteps.save(
    tenant,
    outcome.clientToolCalls.map((call) => call.id),
    outcome.newMessages,
  );
}
