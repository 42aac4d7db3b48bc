/**
 * Every text tool-call format the gateway knows, in one streaming parser: `<tool_call>` (Hermes
 * JSON, GLM key/value tags) and Gemma 4's `<|tool_call>`. The content goes through one parser
 * and then the other; each holds back only what could still be the start of its own tag.
 */
import { GEMMA_CLOSE, GEMMA_OPEN, parseGemmaCall } from "./gemma-tool-calls.ts";
import { HermesToolCallParser, TaggedCallParser, type HermesOutput, type StringArgument } from "./hermes-tool-calls.ts";

export class TextToolCallParser {
  private readonly tagged: HermesToolCallParser;
  private readonly gemma = new TaggedCallParser(GEMMA_OPEN, GEMMA_CLOSE, parseGemmaCall);

  constructor(stringArgument?: StringArgument) {
    this.tagged = new HermesToolCallParser(stringArgument);
  }

  push(chunk: string): HermesOutput {
    const first = this.tagged.push(chunk);
    const second = this.gemma.push(first.text);
    return { text: second.text, calls: [...first.calls, ...second.calls] };
  }

  end(): HermesOutput {
    const first = this.tagged.end();
    const second = this.gemma.push(first.text);
    const last = this.gemma.end();
    return { text: second.text + last.text, calls: [...first.calls, ...second.calls, ...last.calls] };
  }
}

/** A whole content string at once (non-streamed responses). */
export function extractTextToolCalls(content: string, stringArgument?: StringArgument): HermesOutput {
  const parser = new TextToolCallParser(stringArgument);
  const first = parser.push(content);
  const last = parser.end();
  return { text: first.text + last.text, calls: [...first.calls, ...last.calls] };
}
