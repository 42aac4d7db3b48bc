/**
 * Mistral's message-order rules: no user message right after tool messages ("Unexpected role
 * 'user' after role 'tool'"), and no assistant message last unless it is a prefix.
 */
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

/** A trailing assistant message is a prefill: marked `prefix: true` so Mistral continues it. */
export const prefixTrailingAssistant: RequestStep = (body) => {
  const last = body.messages.at(-1);
  if (last?.role !== "assistant" || last.prefix === true) return body;
  return { ...body, messages: [...body.messages.slice(0, -1), { ...last, prefix: true }] };
};
