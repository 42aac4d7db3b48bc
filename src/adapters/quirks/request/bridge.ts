/** Mistral refuses a user message right after tool messages: "Unexpected role 'user' after role 'tool'". */
import type { RequestStep } from "./context.ts";
import type { WireRequestMessage } from "./wire.ts";

/** What the inserted assistant turn says: true to what happened, so the model is not misled. */
export const BRIDGE_TEXT = "I have the tool results.";

export const bridgeUserAfterTool: RequestStep = (body) => {
  const messages: WireRequestMessage[] = [];
  for (const message of body.messages) {
    if (message.role === "user" && messages.at(-1)?.role === "tool") messages.push({ role: "assistant", content: BRIDGE_TEXT });
    messages.push(message);
  }
  return messages.length === body.messages.length ? body : { ...body, messages };
};
