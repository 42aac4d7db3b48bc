/**
 * Every provider's tool-call protocol wants calls and results to pair up; client histories break
 * that when they are truncated (a sliding window that cuts a call off its results) or lose a
 * tool message. Each adapter repairs the pairing its wire format needs instead of failing the
 * request, answering a call left without a result with this placeholder error result.
 */
import type { Message, ToolCallBlock, ToolResultBlock } from "../core/index.ts";

export const UNANSWERED_RESULT_TEXT = "(no result: this tool call was not answered)";

function unanswered(call: ToolCallBlock): ToolResultBlock {
  return { type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: UNANSWERED_RESULT_TEXT }], isError: true };
}

/**
 * The results after an assistant message, by call id (first wins): past the assistant messages
 * right after it (one turn's parallel calls split over several messages, answered together),
 * then up to the next assistant message.
 */
function resultsOfTurn(messages: readonly Message[], from: number): Map<string, ToolResultBlock> {
  const results = new Map<string, ToolResultBlock>();
  let i = from;
  while (i < messages.length && messages[i]!.role === "assistant") i++;
  for (; i < messages.length && messages[i]!.role !== "assistant"; i++) {
    const message = messages[i]!;
    if (message.role !== "tool") continue;
    for (const result of message.content) if (!results.has(result.callId)) results.set(result.callId, result);
  }
  return results;
}

/** Whether every call is answered by the tool messages right after it, and no result is stray. */
function isPaired(messages: readonly Message[]): boolean {
  let open = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") {
      for (const result of message.content) if (!open.delete(result.callId)) return false;
      continue;
    }
    if (open.size > 0) return false;
    if (message.role === "assistant") for (const block of message.content) if (block.type === "tool_call") open.add(block.id);
  }
  return open.size === 0;
}

/**
 * The history with each assistant message's calls answered by one tool message right after it,
 * in call order: results found before the next assistant turn move up next to their call,
 * calls without one get the placeholder error result, and results of no call there are dropped.
 * A history that already pairs up is returned as is.
 */
export function pairToolResults(messages: readonly Message[]): readonly Message[] {
  if (isPaired(messages)) return messages;
  const out: Message[] = [];
  messages.forEach((message, index) => {
    if (message.role === "tool") return; // placed after its call below, or stray
    out.push(message);
    if (message.role !== "assistant") return;
    const calls = message.content.filter((block): block is ToolCallBlock => block.type === "tool_call");
    if (calls.length === 0) return;
    const results = resultsOfTurn(messages, index + 1);
    out.push({ role: "tool", content: calls.map((call) => results.get(call.id) ?? unanswered(call)) });
  });
  return out;
}
