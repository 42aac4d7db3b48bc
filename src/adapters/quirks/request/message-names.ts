/**
 * A message's `name` (OpenAI's participant name) off every message but tool results, for
 * servers that refuse it: Mistral answers 422 extra_forbidden (`body.messages.0.user.name`),
 * Groq documents a 400 for `messages[].name`; the others do not document it.
 */
import type { RequestStep } from "./context.ts";
import type { WireRequestMessage } from "./wire.ts";

function unnamed(message: WireRequestMessage): WireRequestMessage {
  if (message.name === undefined || message.role === "tool") return message;
  const { name: _name, ...rest } = message;
  return rest;
}

export const dropMessageNames: RequestStep = (body) =>
  body.messages.some((message) => message.name !== undefined && message.role !== "tool") ? { ...body, messages: body.messages.map(unnamed) } : body;
