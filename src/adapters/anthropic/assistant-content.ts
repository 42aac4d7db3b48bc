/**
 * Neutral assistant content as Anthropic blocks, in the original order (Anthropic checks that a
 * turn's thinking blocks come back where they were).
 */
import type { AssistantContent, ReasoningBlock, ToolCallBlock } from "../../core/index.ts";
import { toAnthropicToolId } from "./tool-ids.ts";
import { isBlank } from "./user-content.ts";
import type { ContentBlockParam, ToolUseBlockParam } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

/**
 * Thinking goes back only to the provider that produced it, unchanged: Anthropic verifies the
 * signature, so reasoning from another provider (or without its signature) is dropped, never sent
 * with a made-up one.
 */
function reasoningBlocks(block: ReasoningBlock, origin: string): ContentBlockParam[] {
  if (block.providerData?.origin !== origin) return [];
  const { data } = block.providerData;
  if (block.redacted) {
    return typeof data["redactedData"] === "string" ? [{ type: "redacted_thinking", data: data["redactedData"] }] : [];
  }
  const signature = data["signature"];
  return typeof signature === "string" && signature !== ""
    ? [{ type: "thinking", thinking: block.text, signature }]
    : [];
}

/** `input` is the parsed arguments object: Anthropic rejects a string ("Input should be a valid dictionary"). */
function toolUseBlock(block: ToolCallBlock, origin: string): ToolUseBlockParam {
  // Fields Anthropic gave the call (`caller`) go back to it as they came.
  const fields = block.providerData?.origin === origin ? (block.providerData.data["fields"] as object | undefined) : undefined;
  return { ...fields, type: "tool_use", id: toAnthropicToolId(block.id), name: block.name, input: block.arguments };
}

export function toAssistantBlocks(content: AssistantContent[], origin: string): ContentBlockParam[] {
  return flatMapped(content, (block): ContentBlockParam[] => {
    switch (block.type) {
      case "text":
        return isBlank(block.text) ? [] : [{ type: "text", text: block.text }];
      case "reasoning":
        return reasoningBlocks(block, origin);
      case "tool_call":
        return [toolUseBlock(block, origin)];
      case "opaque":
        // A server tool's block goes back only to the provider whose servers ran it.
        return block.providerData.origin === origin ? [block.providerData.data["block"] as ContentBlockParam] : [];
    }
  });
}
