/**
 * Shaping the list of turns into what Anthropic accepts: alternating roles, tool results first in
 * their user turn, a user turn first, no trailing whitespace at the very end.
 */
import type { ContentBlockParam, MessageParam, WireTurn } from "./wire.ts";

/** Stands in for a user turn where one is required but the conversation has none. */
export const PLACEHOLDER_USER_TEXT = ".";

const isToolResult = (block: ContentBlockParam): boolean => block.type === "tool_result";

/** Tool results must open their user turn ("Did not find N `tool_result` block(s) at the beginning…"). */
export function resultsFirst(content: ContentBlockParam[]): ContentBlockParam[] {
  return [...content.filter(isToolResult), ...content.filter((block) => !isToolResult(block))];
}

/** Appends a turn, merging it into the previous one when the role repeats (Anthropic wants alternation). */
export function pushTurn(turns: WireTurn[], turn: WireTurn): void {
  const last = turns.at(-1);
  if (last && last.role === turn.role) last.content.push(...turn.content);
  else turns.push({ role: turn.role, content: [...turn.content] });
}

/** Tool results are moved to the front of their user turn later, by the pairing repair. */
export function mergeTurns(turns: WireTurn[]): WireTurn[] {
  const merged: WireTurn[] = [];
  for (const turn of turns) pushTurn(merged, turn);
  return merged;
}

/** The first message must be a user message (Bedrock and older API versions enforce it). */
export function ensureUserFirst(turns: WireTurn[]): WireTurn[] {
  if (turns[0]?.role === "user") return turns;
  return [{ role: "user", content: [{ type: "text", text: PLACEHOLDER_USER_TEXT }] }, ...turns];
}

/** "final assistant content cannot end with trailing whitespace": trim the last text of a closing assistant turn. */
export function trimFinalAssistant(turns: WireTurn[]): WireTurn[] {
  const last = turns.at(-1);
  const block = last?.content.at(-1);
  if (last?.role !== "assistant" || block?.type !== "text") return turns;
  const text = block.text.trimEnd();
  const content = text === "" ? last.content.slice(0, -1) : [...last.content.slice(0, -1), { ...block, text }];
  return content.length > 0 ? [...turns.slice(0, -1), { role: "assistant", content }] : turns.slice(0, -1);
}

/** A turn of one text block goes in the string form, as the official SDKs send it. */
export function compactTurn(turn: WireTurn): MessageParam {
  const [first] = turn.content;
  if (turn.content.length === 1 && first?.type === "text") return { role: turn.role, content: first.text };
  return { role: turn.role, content: turn.content };
}
