/** Zhipu GLM (Z.ai): error 1214 for any message it does not like. */
import type { Body } from "./conversation.ts";
import { idMaker, openAiStyleReply } from "./openai.ts";
import { orphanToolMessage, unansweredCalls } from "./pairing.ts";
import type { FakeFamily, Rejection, Rule } from "./strict-fake.ts";

export const GLM_ILLEGAL_MESSAGES = "The messages parameter is illegal. Please check the documentation.";

function glmError(message: string): Rejection {
  return { status: 400, message, body: { error: { code: "1214", message } } };
}

const illegal = glmError(GLM_ILLEGAL_MESSAGES);

const messages = (body: Body): Body[] => body.messages;

/** Verified live: system + assistant(tool_calls) + tool, no user, fails. */
const needsUser: Rule = (body) => (messages(body).some((m) => m.role === "user") ? undefined : illegal);

const toolType: Rule = (body) => {
  const index = (body.tools ?? []).findIndex((tool: Body) => !tool.type);
  return index === -1 ? undefined : glmError(`tools[${index}].type:type cannot be empty.`);
};

/** The stricter of the conflicting reports: null content next to tool_calls is refused. */
const nullAssistantContent: Rule = (body) =>
  messages(body).some((m) => m.role === "assistant" && typeof m.content !== "string" && !Array.isArray(m.content)) ? illegal : undefined;

/** glm-4.7/5.1 refuse list content (litellm#29471); older models drop it silently. */
const listContent: Rule = (body) => {
  const index = messages(body).findIndex((m) => (m.role === "tool" || m.role === "assistant") && Array.isArray(m.content));
  return index === -1 ? undefined : glmError(`messages[${index}].content[0].type type error`);
};

/** glm-5.1 is said to refuse reasoning_content in the history. */
const noReasoningContent: Rule = (body) => (messages(body).some((m) => m.reasoning_content !== undefined) ? illegal : undefined);

const pairing: Rule = (body) => (unansweredCalls(body) || orphanToolMessage(body) !== undefined ? illegal : undefined);

export function glmFamily(): FakeFamily {
  const nextId = idMaker((n) => `call_-89518${String(n).padStart(4, "0")}3462791`);
  return {
    name: "zhipu",
    rules: [needsUser, toolType, nullAssistantContent, listContent, noReasoningContent, pairing],
    reply: (body) => {
      const message = openAiStyleReply(body, nextId);
      return message.tool_calls ? { ...message, content: "" } : message;
    },
    style: { piece: 5 },
  };
}
