/**
 * The neutral conversation as Anthropic `system` + `messages`.
 */
import type { Message } from "../../core/index.ts";
import { toAssistantBlocks } from "./assistant-content.ts";
import { repairToolPairing } from "./pairing.ts";
import { toToolResultBlock } from "./tool-result.ts";
import { compactTurn, ensureUserFirst, mergeTurns, PLACEHOLDER_USER_TEXT, trimFinalAssistant } from "./turns.ts";
import { isBlank, toUserBlocks } from "./user-content.ts";
import type { MessageParam, WireTurn } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

export interface WireConversation {
  /** All system messages, wherever they stood, joined: Anthropic takes one top-level `system`. */
  system: string | undefined;
  messages: MessageParam[];
}

/** One neutral message as a turn; undefined when nothing of it can be sent (system, or emptied). */
export function toTurn(message: Message, origin: string): WireTurn | undefined {
  switch (message.role) {
    case "system":
      return undefined;
    case "user":
      return { role: "user", content: toUserBlocks(message.content) };
    case "assistant":
      return { role: "assistant", content: toAssistantBlocks(message.content, origin) };
    case "tool":
      // Several tool messages in a row become one user turn (merged below): parallel results belong together.
      return { role: "user", content: message.content.map(toToolResultBlock) };
  }
}

function systemText(messages: Message[]): string | undefined {
  const parts = flatMapped(messages, (message) => (message.role === "system" ? message.content.map((block) => block.text) : []));
  const text = parts.filter((part) => !isBlank(part)).join("\n\n");
  return text === "" ? undefined : text;
}

/** The role of the nearest turn with content before (step -1) or after (step 1) index `at`. */
function neighbourRole(turns: WireTurn[], at: number, step: 1 | -1): WireTurn["role"] | undefined {
  for (let i = at + step; i >= 0 && i < turns.length; i += step) if (turns[i]!.content.length > 0) return turns[i]!.role;
  return undefined;
}

/**
 * Empty turns (text that was blank: "text content blocks must contain non-whitespace text") are
 * dropped before merging, so their neighbours still alternate. A user turn that empties between
 * assistant turns, or at the end, is kept as a placeholder instead: dropping it would merge two
 * answers into one, or leave the conversation ending with the assistant, which newer models
 * refuse ("This model does not support assistant message prefill") and older ones continue.
 */
function withoutEmptyTurns(turns: WireTurn[]): WireTurn[] {
  return flatMapped(turns, (turn, i) => {
    if (turn.content.length > 0) return [turn];
    const besideUser = neighbourRole(turns, i, -1) === "user" || neighbourRole(turns, i, 1) === "user";
    return turn.role === "user" && !besideUser ? [{ role: "user", content: [{ type: "text", text: PLACEHOLDER_USER_TEXT }] }] : [];
  });
}

/**
 * @param origin the provider id: reasoning is sent back only when this provider produced it.
 */
export function toWireConversation(messages: Message[], origin: string): WireConversation {
  const turns = withoutEmptyTurns(flatMapped(messages, (message) => toTurn(message, origin) ?? []));
  const shaped = trimFinalAssistant(ensureUserFirst(repairToolPairing(mergeTurns(turns))));
  return { system: systemText(messages), messages: shaped.map(compactTurn) };
}
