/**
 * Anthropic rejects a conversation whose tool calls and results do not pair up: every `tool_use`
 * needs a `tool_result` at the start of the next user turn, and every `tool_result` needs a
 * `tool_use` in the turn before. Histories break this when clients truncate them or a tool
 * message got lost, so the pairing is repaired here rather than failing the whole request.
 */
import { UNANSWERED_RESULT_TEXT } from "../tool-pairing.ts";
import { pushTurn, resultsFirst } from "./turns.ts";
import type { ContentBlockParam, ToolResultBlockParam, WireTurn } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export { UNANSWERED_RESULT_TEXT };

function toolUseIds(turn: WireTurn | undefined): Set<string> {
  const ids = new Set<string>();
  if (turn?.role !== "assistant") return ids;
  for (const block of turn.content) if (block.type === "tool_use") ids.add(block.id);
  return ids;
}

function placeholderResult(id: string): ToolResultBlockParam {
  return { type: "tool_result", tool_use_id: id, content: UNANSWERED_RESULT_TEXT, is_error: true };
}

/** Drops orphan results and answers unanswered calls with an error result, results first. */
function repairUserTurn(turn: WireTurn, callIds: Set<string>): ContentBlockParam[] {
  const content = turn.content.filter((block) => block.type !== "tool_result" || callIds.has(block.tool_use_id));
  const answered = new Set(flatMapped(content, (block) => (block.type === "tool_result" ? [block.tool_use_id] : [])));
  const missing = [...callIds].filter((id) => !answered.has(id)).map(placeholderResult);
  return resultsFirst([...content, ...missing]);
}

/**
 * Expects merged turns. A user turn left empty (it held only orphan results) is dropped, and the
 * turns around it merge again so that roles still alternate. A closing assistant turn with calls
 * is left as it is: the conversation then asks for a continuation, which is the caller's choice.
 */
export function repairToolPairing(turns: WireTurn[]): WireTurn[] {
  const repaired: WireTurn[] = [];
  for (const turn of turns) {
    if (turn.role === "assistant") {
      pushTurn(repaired, turn);
      continue;
    }
    const content = repairUserTurn(turn, toolUseIds(repaired.at(-1)));
    if (content.length > 0) pushTurn(repaired, { role: "user", content });
  }
  return repaired;
}
