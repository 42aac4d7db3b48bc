import type { ToolResultBlock } from "../../core/index.ts";
import { toAnthropicToolId } from "./tool-ids.ts";
import { toUserBlocks, type UserWireBlock } from "./user-content.ts";
import type { ToolResultBlockParam } from "./wire.ts";

/** The result's content; MCP `structuredContent` stands in when a tool returned nothing else. */
function resultContent(block: ToolResultBlock): UserWireBlock[] {
  const content = toUserBlocks(block.content);
  if (content.length > 0 || block.structured === undefined) return content;
  return [{ type: "text", text: JSON.stringify(block.structured) }];
}

/**
 * A neutral tool result as an Anthropic `tool_result` block. A lone text block is sent in the
 * string form, as the official SDKs do; an empty result omits `content`, which Anthropic allows.
 */
export function toToolResultBlock(block: ToolResultBlock): ToolResultBlockParam {
  const content = resultContent(block);
  const [first] = content;
  const wireContent = content.length === 1 && first?.type === "text" ? first.text : content;
  return {
    type: "tool_result",
    tool_use_id: toAnthropicToolId(block.callId),
    ...(content.length > 0 ? { content: wireContent } : {}),
    ...(block.isError ? { is_error: true } : {}),
  };
}
