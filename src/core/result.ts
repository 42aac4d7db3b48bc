import type { AssistantMessage, OpaqueBlock, ProviderData, ReasoningBlock, ToolCallBlock } from "./content.ts";

export interface Usage {
  /** Every input token, cached ones included (OpenAI `prompt_tokens` semantics). */
  inputTokens: number;
  /** Every output token, reasoning included where the provider counts it there. */
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  reasoningTokens?: number;
}

export type StopReason = "stop" | "tool_calls" | "length" | "content_filter" | "error";

export interface ChatResult {
  /** The provider's response id. */
  id: string;
  /** The model that answered, as the provider reports it. */
  model: string;
  /** The provider (its config name) that answered: set by the routing layer, which tried the candidates. */
  provider?: string;
  message: AssistantMessage;
  stopReason: StopReason;
  /** The stop sequence that ended the answer, when the provider says which. */
  stopSequence?: string;
  /**
   * The provider's own stop reason when the neutral one says less (Anthropic's `pause_turn`,
   * `model_context_window_exceeded`): for clients of the same protocol.
   */
  providerStopReason?: string;
  usage: Usage;
}

/**
 * Events of one streamed model call. Adapters emit them in order, ending with `done`
 * (which carries the fully assembled result); a failure is thrown as a GatewayError by the
 * adapter (the loop, not the adapters, turns failures into its own `error` event).
 */
export type StreamEvent =
  | { type: "start"; id: string; model: string; provider?: string }
  | { type: "text_start" }
  | { type: "text_delta"; delta: string }
  | { type: "text_end"; text: string }
  | { type: "reasoning_start" }
  | { type: "reasoning_delta"; delta: string }
  | { type: "reasoning_end"; block: ReasoningBlock }
  /** `index` is the call's position among the message's tool calls (0, 1, …), not a wire index. */
  | { type: "tool_call_start"; index: number; id: string; name: string; providerData?: ProviderData }
  | { type: "tool_call_delta"; index: number; id: string; delta: string }
  | { type: "tool_call_end"; index: number; call: ToolCallBlock }
  /** A block the neutral model has no words for (a server tool's), complete. */
  | { type: "opaque"; block: OpaqueBlock }
  | { type: "usage"; usage: Usage }
  | { type: "done"; result: ChatResult };

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0 };
}

/** Sums usage across turns; optional counters stay absent unless some turn reported them. */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  for (const key of ["cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const) {
    if (a[key] !== undefined || b[key] !== undefined) sum[key] = (a[key] ?? 0) + (b[key] ?? 0);
  }
  return sum;
}
