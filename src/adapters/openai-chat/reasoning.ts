import type { AssistantMessage, ReasoningBlock } from "../../core/index.ts";
import type { WireMessageFields } from "./wire-types.ts";

/**
 * Where reasoning text came in, by provider family: a non-standard message field, or
 * (`thinking`) a thinking part of the content array (Mistral's Magistral).
 */
export type ReasoningField = "reasoning_content" | "reasoning" | "thinking";

/** The text of the content array's thinking parts (`thinking` holds text parts, or a string). */
function thinkingText(content: WireMessageFields["content"]): string {
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const part of content) {
    if (part.type !== "thinking") continue;
    if (typeof part.thinking === "string") text += part.thinking;
    else for (const inner of part.thinking ?? []) if (inner.type === "text" && typeof inner.text === "string") text += inner.text;
  }
  return text;
}

/** The reasoning text of a message or delta and where it came in, if any is non-empty. */
export function readReasoning(fields: WireMessageFields): { field: ReasoningField; text: string } | undefined {
  if (typeof fields.reasoning_content === "string" && fields.reasoning_content !== "") {
    return { field: "reasoning_content", text: fields.reasoning_content };
  }
  if (typeof fields.reasoning === "string" && fields.reasoning !== "") {
    return { field: "reasoning", text: fields.reasoning };
  }
  const thinking = thinkingText(fields.content);
  return thinking === "" ? undefined : { field: "thinking", text: thinking };
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
