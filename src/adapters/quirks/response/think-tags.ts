/**
 * Splits a leading `<think>…</think>` (MiniMax M2, also Qwen3/DeepSeek-R1 on servers without a
 * reasoning parser) off the content: the inside is reasoning, the rest is the answer. Only a
 * think block at the very start counts, so a model writing about the tag later is left alone.
 * Streaming-safe: text that might still turn into a tag is held back, nothing else is.
 */
import { partialTagLength } from "./partial-tag.ts";

const OPEN = "<think>";
const CLOSE = "</think>";

export interface ThinkSplit {
  reasoning: string;
  text: string;
}

type State = "start" | "thinking" | "after" | "text";

export class ThinkTagSplitter {
  private state: State = "start";
  private buffer = "";
  /** Whether a think block was opened. */
  found = false;

  push(chunk: string): ThinkSplit {
    this.buffer += chunk;
    const out: ThinkSplit = { reasoning: "", text: "" };
    this.drain(out);
    return out;
  }

  /** What is still held when the content ends: an unclosed think block is reasoning. */
  end(): ThinkSplit {
    const held = this.buffer;
    this.buffer = "";
    if (this.state === "thinking") return { reasoning: held, text: "" };
    return { reasoning: "", text: this.state === "after" ? held.trimStart() : held };
  }

  private drain(out: ThinkSplit): void {
    for (;;) {
      const before = this.state;
      switch (this.state) {
        case "start":
          this.atStart();
          break;
        case "thinking":
          this.inThink(out);
          break;
        case "after":
          this.afterThink();
          break;
        case "text":
          out.text += this.buffer;
          this.buffer = "";
          return;
      }
      if (this.state === before) return;
    }
  }

  /** Only whitespace or part of "<think>" so far: hold it until the next delta decides. */
  private atStart(): void {
    const trimmed = this.buffer.trimStart();
    if (trimmed.startsWith(OPEN)) {
      this.found = true;
      this.buffer = trimmed.slice(OPEN.length);
      this.state = "thinking";
    } else if (!OPEN.startsWith(trimmed)) {
      this.state = "text";
    }
  }

  private inThink(out: ThinkSplit): void {
    const close = this.buffer.indexOf(CLOSE);
    if (close !== -1) {
      out.reasoning += this.buffer.slice(0, close);
      this.buffer = this.buffer.slice(close + CLOSE.length);
      this.state = "after";
      return;
    }
    const keep = partialTagLength(this.buffer, CLOSE);
    out.reasoning += this.buffer.slice(0, this.buffer.length - keep);
    this.buffer = this.buffer.slice(this.buffer.length - keep);
  }

  /** The blank lines between `</think>` and the answer belong to neither. */
  private afterThink(): void {
    this.buffer = this.buffer.trimStart();
    if (this.buffer !== "") this.state = "text";
  }
}

/** A whole content string split at once (non-streamed responses, and replay checks). */
export function splitThinkTags(content: string): ThinkSplit & { found: boolean } {
  const splitter = new ThinkTagSplitter();
  const first = splitter.push(content);
  const last = splitter.end();
  return { reasoning: first.reasoning + last.reasoning, text: first.text + last.text, found: splitter.found };
}
