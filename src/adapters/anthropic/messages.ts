/**
 * The neutral conversation as Anthropic `system` + `messages`.
 */
import type { Message } from "../../core/index.ts";
import { toAssistantBlocks } from "./assistant-content.ts";
import { repairToolPairing } from "./pairing.ts";
import { toToolResultBlock } from "./tool-result.ts";
import { compactTurn, ensureUserFirst, mergeTurns, trimFinalAssistant } from "./turns.ts";
import { isBlank, toUserBlocks } from "./user-content.ts";
import type { MessageParam, WireTurn } from "./wire.ts";

export interface WireConversation {
  /** All system messages, wherever they stood, joined: Anthropic takes one top-level `system`. */
  system: string | undefined;
  messages: MessageParam[];
}

/** One neutral message as a turn; undefined when nothing of it can be sent (system, or emptied). */
function toTurn(message: Message, origin: string): WireTurn | undefined {
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
  const parts = messages.flatMap((message) => (message.role === "system" ? message.content.map((block) => block.text) : []));
  const text = parts.filter((part) => !isBlank(part)).join("\n\n");
  return text === "" ? undefined : text;
}

/**
 * @param origin the provider id: reasoning is sent back only when this provider produced it.
 */
export function toWireConversation(messages: Message[], origin: string): WireConversation {
  const turns = messages.flatMap((message) => {
    const turn = toTurn(message, origin);
    // Empty turns are dropped before merging, so their neighbours still alternate.
    return turn && turn.content.length > 0 ? [turn] : [];
  });
  const shaped = trimFinalAssistant(ensureUserFirst(repairToolPairing(mergeTurns(turns))));
  return { system: systemText(messages), messages: shaped.map(compactTurn) };
}
