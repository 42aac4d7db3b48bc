/**
 * Every text tool-call format the gateway knows, in one streaming parser: `<tool_call>` (Hermes
 * JSON, GLM key/value tags), Gemma 4's `<|tool_call>` and Mistral's `[TOOL_CALLS]`. The content
 * goes through one parser after the other; each holds back only what could still be its own.
 */
import { GEMMA_CLOSE, GEMMA_OPEN, parseGemmaCall } from "./gemma-tool-calls.ts";
import { MistralToolCallParser } from "./mistral-tool-calls.ts";
import { HERMES_CLOSE, HERMES_OPEN, parseHermesCall, TaggedCallParser, type HermesOutput, type StringArgument, type TextToolCall } from "./hermes-tool-calls.ts";

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

export class TextToolCallParser {
  private readonly tagged: TaggedCallParser;
  private readonly gemma: TaggedCallParser;
  private readonly mistral: MistralToolCallParser;

  constructor(options: TextToolCallOptions = {}) {
    const accept = (call: TextToolCall | undefined) => (call && (options.offered?.(call.name) ?? true) ? call : undefined);
    this.tagged = new TaggedCallParser(HERMES_OPEN, HERMES_CLOSE, (inner) => accept(parseHermesCall(inner, options.stringArgument)));
    this.gemma = new TaggedCallParser(GEMMA_OPEN, GEMMA_CLOSE, (inner) => accept(parseGemmaCall(inner)));
    this.mistral = new MistralToolCallParser((call) => accept(call) !== undefined);
  }

  push(chunk: string): HermesOutput {
    const first = this.tagged.push(chunk);
    const second = this.gemma.push(first.text);
    const third = this.mistral.push(second.text);
    return { text: third.text, calls: [...first.calls, ...second.calls, ...third.calls] };
  }

  end(options: { takeUnclosed?: boolean } = {}): HermesOutput {
    const first = this.tagged.end(options);
    const second = this.gemma.push(first.text);
    const secondEnd = this.gemma.end(options);
    const third = this.mistral.push(second.text + secondEnd.text);
    const last = this.mistral.end(options);
    return { text: third.text + last.text, calls: [...first.calls, ...second.calls, ...secondEnd.calls, ...third.calls, ...last.calls] };
  }
}

/** A whole content string at once (non-streamed responses). */
export function extractTextToolCalls(content: string, options: TextToolCallOptions = {}): HermesOutput {
  const parser = new TextToolCallParser(options);
  const first = parser.push(content);
  const last = parser.end();
  return { text: first.text + last.text, calls: [...first.calls, ...last.calls] };
}
