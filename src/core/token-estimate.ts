/**
 * A token estimate for when no provider count is at hand, calibrated against OpenAI's cl100k_base
 * BPE on prose, code, JSON (pretty and compact), Chinese, Japanese and mixed text (each within
 * about 15%; test/loop/long-conversations.test.ts): a CJK character (or full-width punctuation) is
 * about one token; a word of up to seven letters one token, a longer one one per six letters; digits one per three;
 * punctuation one per mark or two, and none when it leads a word (`/home`, `.txt`); a newline
 * with its indentation most of one. Newer BPEs (o200k) pack CJK denser: the estimate then errs
 * high, the safe side for budgeting. An image is about what Anthropic charges a 1092×1092
 * picture; a tool by the JSON of its definition. Enough to budget a context, not to bill.
 */
import type { Message } from "./content.ts";
import type { ToolDefinition } from "./request.ts";

/** Hiragana, Katakana, CJK ideographs (and extension A, compatibility), Hangul syllables, CJK and full-width punctuation. */
const CJK_CHARS = "\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af\uff00-\uffef";
/** One match per piece: a CJK character, a letter run, a digit run, a whitespace run, a punctuation run. */
const PIECES = new RegExp(`([${CJK_CHARS}])|(\\p{L}+)|(\\p{N}+)|(\\s+)|([^\\p{L}\\p{N}\\s${CJK_CHARS}]+)`, "gu");
const LETTER = /\p{L}/u;

export const IMAGE_TOKENS = 1600;
/** The framing of one message (role, separators). */
const MESSAGE_OVERHEAD = 4;

export function estimateTextTokens(text: string): number {
  if (text === "") return 0;
  let tokens = 0;
  PIECES.lastIndex = 0;
  for (let m = PIECES.exec(text); m !== null; m = PIECES.exec(text)) {
    if (m[1] !== undefined) tokens += 1.05;
    else if (m[2] !== undefined) tokens += m[2].length <= 7 ? 1 : Math.ceil(m[2].length / 6);
    else if (m[3] !== undefined) tokens += Math.ceil(m[3].length / 3);
    else if (m[4] !== undefined) tokens += m[4].includes("\n") ? 0.85 : m[4].length > 1 ? 0.5 : 0;
    else {
      const run = m[5]!.length;
      const cost = run === 1 ? 1 : Math.max(1, run * 0.5);
      // A mark that leads a word is usually part of its token.
      tokens += LETTER.test(text[PIECES.lastIndex] ?? "") ? cost - 1 : cost;
    }
  }
  return Math.max(1, Math.ceil(tokens));
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
