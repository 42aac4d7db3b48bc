/** Message content in the shape strict servers (GLM) accept. */
import type { RequestStep } from "./context.ts";
import type { WireContentPart, WireRequestMessage } from "./wire.ts";

/** null/missing assistant content as "" (GLM answers 1214 to null next to tool_calls). */
export const assistantContentString: RequestStep = (body) => ({
  ...body,
  messages: body.messages.map((message) =>
    message.role === "assistant" && typeof message.content !== "string" && !Array.isArray(message.content)
      ? { ...message, content: "" }
      : message,
  ),
});

function partText(part: WireContentPart): string {
  return typeof part.text === "string" ? part.text : "";
}

/** Roles whose list content GLM drops; user content keeps its parts (images). */
const FLATTENED_ROLES = new Set(["system", "assistant", "tool"]);

function flattenMessage(message: WireRequestMessage): WireRequestMessage {
  if (!FLATTENED_ROLES.has(message.role) || !Array.isArray(message.content)) return message;
  return { ...message, content: message.content.map(partText).join("\n") };
}

export const flattenContent: RequestStep = (body) => ({ ...body, messages: body.messages.map(flattenMessage) });
