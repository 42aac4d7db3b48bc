/**
 * Response messages and stream deltas as the quirk steps see them: before the steps run, the
 * provider's data has not been normalized yet (arguments may be objects, extra fields appear).
 */
import type { WireMessageFields } from "../../openai-chat/wire-types.ts";

export interface LooseToolCall {
  index?: number | null;
  id?: string | null;
  type?: string | null;
  function?: { name?: string | null; arguments?: unknown } | null;
  /** Gemini: `{ google: { thought_signature } }`. */
  extra_content?: unknown;
}

/** A response message, or one stream delta: the steps treat both alike. */
export interface LooseDelta extends Omit<WireMessageFields, "tool_calls"> {
  tool_calls?: LooseToolCall[] | null;
  /** MiniMax with `reasoning_split`. */
  reasoning_details?: unknown;
}

/**
 * One stateful transformation of a response's deltas. A non-streamed message is one delta with
 * `final` set; a stream passes each choice-0 delta, `final` on the one carrying finish_reason
 * (where held-back text must come out).
 */
export interface DeltaStep {
  /** `finishReason`: the provider's, on the final delta (when it sent one). */
  apply(delta: LooseDelta, final: boolean, finishReason?: string): LooseDelta;
}

/** Appends reasoning text to a delta (steps that find reasoning elsewhere put it here). */
export function withReasoning(delta: LooseDelta, text: string): LooseDelta {
  if (text === "") return delta;
  const current = typeof delta.reasoning_content === "string" ? delta.reasoning_content : "";
  return { ...delta, reasoning_content: current + text };
}
