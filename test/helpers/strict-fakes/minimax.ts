/**
 * MiniMax (OpenAI endpoint). Its interleaved thinking has no error when dropped, only a loss of
 * quality, so this fake records instead of refusing: it keeps what it sent, and a test compares
 * the history it gets back byte for byte. With `reasoning_split: true` the reasoning comes in
 * `reasoning_details` instead of `<think>` in the content.
 */
import { FINAL_ANSWER, type Body, wantsAnswer } from "./conversation.ts";
import { idMaker, openAiStyleReply } from "./openai.ts";
import { unansweredCalls } from "./pairing.ts";
import type { ScriptedMessage } from "./render.ts";
import type { FakeFamily, Rule } from "./strict-fake.ts";

export const MINIMAX_THINKING = "\nThe user asks two things. I will call both tools.\n";
/** Exactly what MiniMax puts in `content` for a tool turn: the think block and a blank line. */
export const MINIMAX_TOOL_TURN_CONTENT = `<think>${MINIMAX_THINKING}</think>\n\nLet me look both up.`;

const pairing: Rule = (body) =>
  unansweredCalls(body) ? { status: 400, message: "invalid params, tool call result does not follow tool call (2013)", body: { error: { message: "invalid params, tool call result does not follow tool call (2013)", type: "bad_request_error", code: "2013" } } } : undefined;

export interface MiniMaxFamily extends FakeFamily {
  /** Assistant messages this fake sent, as sent (content, reasoning_details). */
  sent: { content: string | null | undefined; reasoning_details?: unknown }[];
}

export function minimaxFamily(): MiniMaxFamily {
  const nextId = idMaker((n) => `call_function_${n}x7k2m9p4q1`);
  const sent: MiniMaxFamily["sent"] = [];
  const reply = (body: Body): ScriptedMessage => {
    const split = body.reasoning_split === true;
    const base = openAiStyleReply(body, nextId);
    const thinking = wantsAnswer(body) ? "\nBoth results are in.\n" : MINIMAX_THINKING;
    const text = wantsAnswer(body) ? FINAL_ANSWER : "Let me look both up.";
    const message: ScriptedMessage = split
      ? { ...base, content: text, reasoning_details: [{ type: "reasoning.text", id: "reasoning-text-1", format: "MiniMax-response-v1", index: 0, text: thinking }] }
      : { ...base, content: `<think>${thinking}</think>\n\n${text}` };
    sent.push({ content: message.content, ...(message.reasoning_details ? { reasoning_details: message.reasoning_details } : {}) });
    return message;
  };
  return { name: "minimax", rules: [pairing], reply, style: { piece: 4 }, sent };
}
