import type { AssistantContent, ChatResult } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { inputText, opaqueResult, redactedResult, textResult, thinkingResult, toolCallResult, toolUseExtras } from "./result-blocks.ts";
import { toStopReason } from "./stop-reason.ts";
import { fromUsage } from "./usage.ts";
import type { ContentBlock, Message } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

/**
 * Server tool blocks (`server_tool_use`, `*_tool_result`, container uploads) ran on Anthropic's
 * side: they are not calls for the gateway or the client to run; they are kept whole (opaque).
 */
function fromBlock(block: ContentBlock, origin: string): AssistantContent[] {
  switch (block.type) {
    case "text":
      return [textResult(block.text)];
    case "thinking":
      return [thinkingResult(block.thinking, block.signature, origin)];
    case "redacted_thinking":
      return [redactedResult(block.data, origin)];
    case "tool_use":
      return [toolCallResult(block.id, block.name, inputText(block.input), false, toolUseExtras(block, origin))];
    default:
      return [opaqueResult(block, origin)];
  }
}

/**
 * With stop_reason max_tokens, a tool call that ends the response may have been cut off; a plain
 * response cannot tell, so such a call is not handed out as runnable.
 */
function withTruncatedCall(content: AssistantContent[], stopReason: string | null): AssistantContent[] {
  const last = content.at(-1);
  if (stopReason !== "max_tokens" || last?.type !== "tool_call") return content;
  return [...content.slice(0, -1), toolCallResult(last.id, last.name, last.rawArguments, true)];
}

/** A non-streamed Message as a neutral ChatResult. */
export function fromMessage(message: Message, origin: string): ChatResult {
  if (!Array.isArray(message?.content)) throw upstreamProtocolError(origin, "the response has no content array");
  const content = flatMapped(message.content, (block) => fromBlock(block, origin));
  return {
    id: message.id,
    model: message.model,
    message: { role: "assistant", content: withTruncatedCall(content, message.stop_reason) },
    stopReason: toStopReason(message.stop_reason),
    ...(message.stop_sequence ? { stopSequence: message.stop_sequence } : {}),
    ...(message.stop_reason ? { providerStopReason: message.stop_reason } : {}),
    usage: fromUsage(message.usage),
  };
}
