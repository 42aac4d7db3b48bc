/**
 * DeepSeek. Thinking mode (every model but `deepseek-chat` here, `deepseek-reasoner` included, as
 * on today's API) wants the reasoning of tool turns back. DEEPSEEK_LEGACY_REASONER stands for the
 * R1-era `deepseek-reasoner` (before V3.1), which refused any reasoning_content in the input.
 */
import type { Body } from "./conversation.ts";
import { idMaker, openAiStyleReply } from "./openai.ts";
import { unansweredCalls } from "./pairing.ts";
import { openAiError, type FakeFamily, type Rule } from "./strict-fake.ts";

export const DEEPSEEK_LEGACY_REASONER = "deepseek-r1-legacy";
export const DEEPSEEK_REASONING_REFUSED =
  "The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your message to reduce network traffic.";
export const deepseekMissingReasoning = (index: number) =>
  `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;

const messages = (body: Body): Body[] => body.messages;

const legacyReasoner: Rule = (body) =>
  body.model === DEEPSEEK_LEGACY_REASONER && messages(body).some((m) => m.reasoning_content !== undefined)
    ? openAiError(400, DEEPSEEK_REASONING_REFUSED, { code: "invalid_request_error" })
    : undefined;

const thinkingMode: Rule = (body) => {
  if (body.model === DEEPSEEK_LEGACY_REASONER || body.model === "deepseek-chat") return undefined;
  const index = messages(body).findIndex((m) => m.role === "assistant" && m.tool_calls?.length && typeof m.reasoning_content !== "string");
  return index === -1 ? undefined : openAiError(400, deepseekMissingReasoning(index), { code: "invalid_request_error" });
};

const pairing: Rule = (body) =>
  unansweredCalls(body)
    ? openAiError(
        400,
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. (insufficient tool messages following tool_calls message)",
        { code: "invalid_request_error" },
      )
    : undefined;

export const DEEPSEEK_REASONING = "The user wants weather and time; both tools at once.";

export function deepseekFamily(): FakeFamily {
  const nextId = idMaker((n) => `call_0${n}_a8f5c1d2e3b4f5a6b7c8d9e0`);
  return {
    name: "deepseek",
    rules: [legacyReasoner, thinkingMode, pairing],
    reply: (body) => {
      const message = openAiStyleReply(body, nextId);
      return { ...message, content: message.content ?? "", reasoning_content: message.tool_calls ? DEEPSEEK_REASONING : "Both results are in." };
    },
    style: { piece: 3 },
  };
}
