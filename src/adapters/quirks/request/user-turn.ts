/** A user message before the first non-system message, for servers that insist on one. */
import type { RequestStep } from "./context.ts";

/**
 * Placeholder for a conversation that starts without the user (an agent resuming from its own
 * tool calls, or a history cut short). Short and neutral, so the model reads it as "go on".
 */
export const USER_PLACEHOLDER = "Continue.";

export const ensureUserMessage: RequestStep = (body) => {
  const first = body.messages.findIndex((message) => message.role !== "system" && message.role !== "developer");
  if (first !== -1 && body.messages[first]?.role === "user") return body;
  const at = first === -1 ? body.messages.length : first;
  const messages = [...body.messages];
  messages.splice(at, 0, { role: "user", content: USER_PLACEHOLDER });
  return { ...body, messages };
};
