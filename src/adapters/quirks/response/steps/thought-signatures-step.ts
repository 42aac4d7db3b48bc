/**
 * Gemini 3 returns a thought signature per function call in
 * `tool_calls[].extra_content.google.thought_signature` (in a stream, on the call's first
 * delta). It is noted under the call's id, to become that call's providerData. Gemini often
 * sends no ids at all, so calls get one here, where the signature can still be tied to it.
 */
import type { ProviderNotes } from "../provider-notes.ts";
import type { DeltaStep, LooseDelta, LooseToolCall } from "../wire.ts";
import { synthesizeToolCallId } from "../../../openai-chat/tool-call.ts";

export const THOUGHT_SIGNATURE_KEY = "thoughtSignature";

function signatureOf(call: LooseToolCall): string | undefined {
  const extra = call.extra_content;
  if (typeof extra !== "object" || extra === null || !("google" in extra)) return undefined;
  const google: unknown = extra.google;
  if (typeof google !== "object" || google === null || !("thought_signature" in google)) return undefined;
  const signature: unknown = google.thought_signature;
  return typeof signature === "string" && signature !== "" ? signature : undefined;
}

export class ThoughtSignaturesStep implements DeltaStep {
  /** Wire index -> id of the call open at that index (continuations carry no id). */
  private readonly openCalls = new Map<number, string>();

  constructor(private readonly notes: ProviderNotes) {}

  apply(delta: LooseDelta): LooseDelta {
    return delta.tool_calls ? { ...delta, tool_calls: delta.tool_calls.map((call) => this.track(call)) } : delta;
  }

  private track(call: LooseToolCall): LooseToolCall {
    const { id, fresh } = this.idOf(call);
    const signature = signatureOf(call);
    if (signature !== undefined) this.notes.noteCall(id, { [THOUGHT_SIGNATURE_KEY]: signature });
    return fresh ? { ...call, id } : call;
  }

  /** The call's id: its own, the one of the call it continues, or a fresh one for a new call. */
  private idOf(call: LooseToolCall): { id: string; fresh: boolean } {
    const index = typeof call.index === "number" ? call.index : undefined;
    if (call.id) {
      if (index !== undefined) this.openCalls.set(index, call.id);
      return { id: call.id, fresh: false };
    }
    const open = index === undefined ? undefined : this.openCalls.get(index);
    if (open !== undefined) return { id: open, fresh: false };
    const id = synthesizeToolCallId();
    if (index !== undefined) this.openCalls.set(index, id);
    return { id, fresh: true };
  }
}
