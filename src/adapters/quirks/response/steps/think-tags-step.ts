/**
 * MiniMax puts its reasoning inside `content` as `<think>…</think>`. The neutral result shows it
 * as reasoning and the answer without the tags; the content exactly as received is noted, so the
 * request side can send it back byte-for-byte (MiniMax's interleaved thinking must be kept whole).
 */
import type { ProviderNotes } from "../provider-notes.ts";
import { ThinkTagSplitter } from "../think-tags.ts";
import { withReasoning, type DeltaStep, type LooseDelta } from "../wire.ts";
import { contentText } from "../../../openai-chat/from-response.ts";

/** providerData key of the raw content on the reasoning block. */
export const RAW_CONTENT_KEY = "content";

export class ThinkTagsStep implements DeltaStep {
  private readonly splitter = new ThinkTagSplitter();
  private raw = "";

  constructor(private readonly notes: ProviderNotes) {}

  apply(delta: LooseDelta, final: boolean): LooseDelta {
    const text = contentText(delta.content);
    this.raw += text;
    const split = this.splitter.push(text);
    if (final) {
      const rest = this.splitter.end();
      split.reasoning += rest.reasoning;
      split.text += rest.text;
      if (this.splitter.found) this.notes.noteReasoning({ [RAW_CONTENT_KEY]: this.raw });
    }
    const content = text === "" && split.text === "" ? delta.content : split.text;
    return withReasoning({ ...delta, content }, split.reasoning);
  }
}
