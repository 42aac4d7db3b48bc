import type { LoopOutcome, LoopStopReason, PlanReport } from "../../loop/index.ts";
import { loopReport } from "./loop-setup.ts";

/**
 * What the gateway did for a response, beyond the OpenAI fields: the exact stop reason (the
 * finish_reason "length" also covers running out of turns) and the MCP tool calls it ran.
 * Sent as the extra `mcp_gateway` field, which OpenAI clients ignore and pass through.
 */
export interface GatewayInfo {
  /** The provider (config name) and model that gave the last answer: after a fallback, not the alias's first. */
  provider?: string;
  model: string;
  stop_reason: LoopStopReason;
  turns: number;
  tool_calls: { name: string; duration_ms: number; is_error: boolean }[];
  /** Every model call of the request summed (a door's own usage may count differently: Messages reports the last call's input). */
  usage: { input_tokens: number; output_tokens: number };
  /** Context compaction of this request: turns removed, tokens before and after, strategy (loop-setup.ts loopReport). */
  compacted?: unknown;
  /** The search tool that stood in for the MCP tools: tools, offered, found, tokens saved. */
  tool_search?: unknown;
  /** The turns ran out and one more call without tools gave the answer. */
  final_answer?: boolean;
  /** Plan mode: the plan's steps, each with its status and result. */
  plan?: PlanReport;
}

export function gatewayInfo(outcome: LoopOutcome): GatewayInfo {
  return {
    ...(outcome.last.provider ? { provider: outcome.last.provider } : {}),
    model: outcome.last.model,
    stop_reason: outcome.stopReason,
    turns: outcome.turns,
    tool_calls: outcome.tools.map((t) => ({ name: t.call.name, duration_ms: t.durationMs, is_error: t.result.isError })),
    usage: { input_tokens: outcome.usage.inputTokens, output_tokens: outcome.usage.outputTokens },
    ...loopReport(outcome),
    ...(outcome.plan ? { plan: outcome.plan } : {}),
  };
}
