/**
 * MiniMax with `reasoning_split: true` sends reasoning as `reasoning_details`
 * (`[{ type: "reasoning.text", id, format, index, text }]`), streamed as fragments of the same
 * entries. The text becomes the neutral reasoning; the entries, merged by index, are noted so
 * the request side can send them back verbatim, as MiniMax asks.
 */
import { isJsonObject, type JsonObject } from "../../../../core/json-object.ts";
import type { ProviderNotes } from "../provider-notes.ts";
import { withReasoning, type DeltaStep, type LooseDelta } from "../wire.ts";

export const REASONING_DETAILS_KEY = "reasoningDetails";

export class ReasoningDetailsStep implements DeltaStep {
  private readonly merged: JsonObject[] = [];

  constructor(private readonly notes: ProviderNotes) {}

  apply(delta: LooseDelta, final: boolean): LooseDelta {
    const details = Array.isArray(delta.reasoning_details) ? delta.reasoning_details.filter(isJsonObject) : [];
    const text = details.map((detail) => this.merge(detail)).join("");
    if (final && this.merged.length > 0) this.notes.noteReasoning({ [REASONING_DETAILS_KEY]: this.merged });
    const { reasoning_details: _details, ...rest } = delta;
    return withReasoning(rest, text);
  }

  /** Adds a fragment to the entry of its index (a new entry when unseen); returns its text. */
  private merge(detail: JsonObject): string {
    const text = typeof detail["text"] === "string" ? detail["text"] : "";
    const index = typeof detail["index"] === "number" ? detail["index"] : this.merged.length;
    const entry = this.merged.find((item) => item["index"] === index);
    if (!entry) this.merged.push({ ...detail, index, text });
    else entry["text"] = `${typeof entry["text"] === "string" ? entry["text"] : ""}${text}`;
    return text;
  }
}
