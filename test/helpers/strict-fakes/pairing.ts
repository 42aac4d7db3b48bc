/** Pairing checks several providers make (each with its own text). */
import type { Body } from "./conversation.ts";

/** Ids of an assistant message's calls that the tool messages right after it do not answer. */
export function unansweredCalls(body: Body): { index: number; missing: string[] } | undefined {
  const messages: Body[] = body.messages;
  for (let i = 0; i < messages.length; i++) {
    const calls: Body[] = messages[i]!.tool_calls ?? [];
    if (messages[i]!.role !== "assistant" || calls.length === 0) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++) answered.add(messages[j]!.tool_call_id);
    const missing = calls.map((call) => call.id as string).filter((id) => !answered.has(id));
    if (missing.length > 0) return { index: i, missing };
  }
  return undefined;
}

/** Tool messages whose call is not in the assistant message before them. */
export function orphanToolMessage(body: Body): number | undefined {
  const messages: Body[] = body.messages;
  let open = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "assistant") open = new Set((message.tool_calls ?? []).map((call: Body) => call.id));
    else if (message.role === "tool") {
      if (!open.has(message.tool_call_id)) return i;
    } else open = new Set();
  }
  return undefined;
}
