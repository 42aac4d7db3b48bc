/**
 * Every text tool-call format the gateway knows, in one streaming scanner: `<tool_call>…</tool_call>`
 * (Hermes JSON, GLM key/value tags), Gemma 4's `<|tool_call>…<tool_call|>` and Mistral's
 * `[TOOL_CALLS]…` (to the end of the content). Outside a call it looks for the earliest opening
 * of any format and holds back only what could still become one; inside a call it looks only for
 * that format's own end, so another format's tag inside an argument string is just text there.
 * Calls come out in the order they appear.
 */
import { GEMMA_CLOSE, GEMMA_OPEN, parseGemmaCall } from "./gemma-tool-calls.ts";
import { HERMES_CLOSE, HERMES_OPEN, parseHermesCall, type TextToolCallOutput, type StringArgument, type TextToolCall } from "./hermes-tool-calls.ts";
import { MISTRAL_CALLS, parseMistralCalls } from "./mistral-tool-calls.ts";
import { partialTagLength } from "./partial-tag.ts";

export interface TextToolCallOptions {
  /** Whether an argument is declared a string (GLM values). */
  stringArgument?: StringArgument;
  /**
   * Whether the request offered a tool of this name. A "call" of any other name stays text: a
   * model writing about the tags (`the <tool_call> and </tool_call> tags`) is not calling
   * anything. Every name is accepted when not given.
   */
  offered?: (name: string) => boolean;
}

interface Format {
  open: string;
  /** Undefined: the calls run to the end of the content (Mistral). */
  close: string | undefined;
  /** The calls in what the tags enclose, or undefined when it does not read as (offered) calls. */
  parse: (inner: string) => TextToolCall[] | undefined;
}

export class TextToolCallParser {
  private readonly formats: Format[];
  private current: Format | undefined;
  /** Outside a call: what could still be the start of an opening. Inside: the newest text. */
  private buffer = "";
  /** Inside a call: its body so far, before `buffer` (kept as parts: linear on long calls). */
  private body: string[] = [];
  /** Right after a call, whitespace (the newline between calls) is dropped, not shown. */
  private afterCall = false;

  constructor(options: TextToolCallOptions = {}) {
    const offered = (call: TextToolCall) => options.offered?.(call.name) ?? true;
    const one = (call: TextToolCall | undefined) => (call && offered(call) ? [call] : undefined);
    this.formats = [
      { open: HERMES_OPEN, close: HERMES_CLOSE, parse: (inner) => one(parseHermesCall(inner, options.stringArgument)) },
      { open: GEMMA_OPEN, close: GEMMA_CLOSE, parse: (inner) => one(parseGemmaCall(inner)) },
      {
        open: MISTRAL_CALLS,
        close: undefined,
        parse: (inner) => {
          const calls = parseMistralCalls(inner);
          return calls?.every(offered) ? calls : undefined;
        },
      },
    ];
  }

  push(chunk: string): TextToolCallOutput {
    this.buffer += chunk;
    const out: TextToolCallOutput = { text: "", calls: [] };
    let progressed = true;
    while (progressed) progressed = this.current ? this.closeCall(out, this.current) : this.openCall(out);
    return out;
  }

  /**
   * The end of the content: a partial opening is text; an unclosed call still counts if it reads
   * (servers drop the closing tag), unless `takeUnclosed` is false (the answer was cut off).
   */
  end({ takeUnclosed = true }: { takeUnclosed?: boolean } = {}): TextToolCallOutput {
    const out: TextToolCallOutput = { text: "", calls: [] };
    const format = this.current;
    const rest = this.body.join("") + this.buffer;
    this.buffer = "";
    this.body = [];
    this.current = undefined;
    if (!format) this.emit(out, rest);
    else if (takeUnclosed) this.finishCall(out, format, rest, "");
    else this.emit(out, format.open + rest);
    return out;
  }

  /** Emits text up to the earliest opening; true when one was found (the loop goes on inside it). */
  private openCall(out: TextToolCallOutput): boolean {
    let first: { at: number; format: Format } | undefined;
    for (const format of this.formats) {
      const at = this.buffer.indexOf(format.open);
      if (at !== -1 && (!first || at < first.at)) first = { at, format };
    }
    if (!first) {
      const keep = Math.max(...this.formats.map((format) => partialTagLength(this.buffer, format.open)));
      this.emit(out, this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return false;
    }
    this.emit(out, this.buffer.slice(0, first.at));
    this.buffer = this.buffer.slice(first.at + first.format.open.length);
    this.current = first.format;
    return true;
  }

  /** Waits for the format's own end; true when the call is complete. */
  private closeCall(out: TextToolCallOutput, format: Format): boolean {
    const close = format.close === undefined ? -1 : this.buffer.indexOf(format.close);
    if (close === -1) {
      const keep = format.close === undefined ? 0 : Math.min(this.buffer.length, format.close.length - 1);
      this.body.push(this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return false;
    }
    const inner = this.body.join("") + this.buffer.slice(0, close);
    this.body = [];
    this.buffer = this.buffer.slice(close + format.close!.length);
    this.current = undefined;
    this.finishCall(out, format, inner, format.close!);
    return true;
  }

  private finishCall(out: TextToolCallOutput, format: Format, inner: string, closing: string): void {
    const calls = format.parse(inner);
    if (calls) {
      out.calls.push(...calls);
      this.afterCall = true;
    } else {
      this.emit(out, format.open + inner + closing);
    }
  }

  private emit(out: TextToolCallOutput, text: string): void {
    const shown = this.afterCall ? text.trimStart() : text;
    if (shown !== "") this.afterCall = false;
    out.text += shown;
  }
}

/** A whole content string at once (non-streamed responses). */
export function extractTextToolCalls(content: string, options: TextToolCallOptions = {}): TextToolCallOutput {
  const parser = new TextToolCallParser(options);
  const first = parser.push(content);
  const last = parser.end();
  return { text: first.text + last.text, calls: [...first.calls, ...last.calls] };
}
