/**
 * Tool calls printed as text become real tool calls: the text leaves `content` and the call is
 * added to `tool_calls` as one whole fragment, which the base translation then treats like any
 * native call (the finish reason "stop" such servers report becomes tool_calls there).
 */
import { TextToolCallParser, type TextToolCallOptions } from "../text-tool-calls.ts";
import type { DeltaStep, LooseDelta, LooseToolCall } from "../wire.ts";
import { contentText } from "../../../openai-chat/from-response.ts";
import { synthesizeToolCallId } from "../../../openai-chat/tool-call.ts";

/**
 * Wire index of the first extracted call: far above any native index, so a server that mixes
 * native and printed calls never has the two merged (the base re-numbers indexes densely).
 */
const FIRST_TEXT_CALL_INDEX = 10_000;

export class TextToolCallsStep implements DeltaStep {
  private readonly parser: TextToolCallParser;
  private count = 0;

  constructor(options: TextToolCallOptions) {
    this.parser = new TextToolCallParser(options);
  }

  apply(delta: LooseDelta, final: boolean, finishReason?: string): LooseDelta {
    const text = contentText(delta.content);
    const out = this.parser.push(text);
    if (final) {
      // Cut off (token limit, content filter): a call still open is half a call, not one to run.
      const rest = this.parser.end({ takeUnclosed: finishReason !== "length" && finishReason !== "content_filter" });
      out.text += rest.text;
      out.calls.push(...rest.calls);
    }
    const content = text === "" && out.text === "" ? delta.content : out.text;
    if (out.calls.length === 0) return { ...delta, content };
    const calls: LooseToolCall[] = out.calls.map((call) => ({
      index: FIRST_TEXT_CALL_INDEX + this.count++,
      id: synthesizeToolCallId(),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
    return { ...delta, content, tool_calls: [...(delta.tool_calls ?? []), ...calls] };
  }
}
