/**
 * A token estimate for when no provider count is at hand: a CJK character is about one token,
 * other text about four characters a token; an image about what Anthropic charges a
 * 1092×1092 picture; a tool by the JSON of its definition. Good to a few tens of percent —
 * enough to budget a context, not to bill.
 */
import type { Message } from "./content.ts";
import type { ToolDefinition } from "./request.ts";

/** Hiragana, Katakana, CJK ideographs (and extension A, compatibility), Hangul syllables. */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]/gu;

export const IMAGE_TOKENS = 1600;
/** The framing of one message (role, separators). */
const MESSAGE_OVERHEAD = 4;

export function estimateTextTokens(text: string): number {
  if (text === "") return 0;
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

function blockTokens(block: Message["content"][number]): number {
  switch (block.type) {
    case "text":
      return estimateTextTokens(block.text);
    case "reasoning":
      return estimateTextTokens(block.text);
    case "image":
      return IMAGE_TOKENS;
    case "audio":
      return Math.ceil((block.data.length * 3) / 4 / 32);
    case "resource":
      return estimateTextTokens(block.text ?? block.uri) + (block.blob ? Math.ceil(block.blob.length / 4) : 0);
    case "tool_call":
      return estimateTextTokens(block.name) + estimateTextTokens(block.rawArguments);
    case "tool_result":
      return block.content.reduce((sum, part) => sum + blockTokens(part), 0);
    case "opaque":
      return estimateTextTokens(JSON.stringify(block.providerData.data));
  }
}

export function estimateMessageTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) {
    total += MESSAGE_OVERHEAD;
    for (const block of message.content) total += blockTokens(block);
  }
  return total;
}

export function estimateToolTokens(tools: readonly ToolDefinition[]): number {
  return tools.reduce((sum, tool) => sum + estimateTextTokens(JSON.stringify({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })), 0);
}
