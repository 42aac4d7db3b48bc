import type { AssistantMessage, ReasoningBlock } from "../../core/index.ts";
import type { WireMessageFields } from "./wire-types.ts";

/** The non-standard message fields that carry reasoning text, by provider family. */
export type ReasoningField = "reasoning_content" | "reasoning";

/** The reasoning text of a message or delta and the field it came in, if any is non-empty. */
export function readReasoning(fields: WireMessageFields): { field: ReasoningField; text: string } | undefined {
  if (typeof fields.reasoning_content === "string" && fields.reasoning_content !== "") {
    return { field: "reasoning_content", text: fields.reasoning_content };
  }
  if (typeof fields.reasoning === "string" && fields.reasoning !== "") {
    return { field: "reasoning", text: fields.reasoning };
  }
  return undefined;
}

/**
 * A reasoning block stamped with its origin and wire field, so a quirk layer can send it back to
 * the same provider in the field it expects (DeepSeek wants `reasoning_content` on tool turns).
 */
export function toReasoningBlock(text: string, field: ReasoningField, origin: string): ReasoningBlock {
  return { type: "reasoning", text, providerData: { origin, data: { field } } };
}

/** The readable reasoning text this provider produced for the message (never another's). */
export function ownReasoning(message: AssistantMessage, origin: string): string {
  return message.content
    .filter((block): block is ReasoningBlock => block.type === "reasoning")
    .filter((block) => !block.redacted && block.providerData?.origin === origin)
    .map((block) => block.text)
    .join("");
}
