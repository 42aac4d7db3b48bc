/** Mistral: 9-character tool-call ids, strict role order, no `name` outside tool messages. */
import type { Body } from "./conversation.ts";
import { idMaker, openAiStyleReply } from "./openai.ts";
import type { FakeFamily, Rejection, Rule } from "./strict-fake.ts";

export const MISTRAL_USER_AFTER_TOOL = "Unexpected role 'user' after role 'tool'";
export const MISTRAL_TOOL_AFTER_USER = "Unexpected role 'tool' after role 'user'";
export const MISTRAL_TRAILING_ASSISTANT = "Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant";
export const mistralIdError = (id: string) => `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`;

/** Mistral's own error shape: the error object at the top level. */
function mistralError(message: string, type: string, code: string | null): Rejection {
  return { status: 400, message, body: { object: "error", message, type, param: null, code } };
}

const messages = (body: Body): Body[] => body.messages;

const toolCallIds: Rule = (body) => {
  for (const message of messages(body)) {
    const ids: unknown[] = [...(message.tool_calls ?? []).map((call: Body) => call.id), ...(message.role === "tool" ? [message.tool_call_id] : [])];
    const bad = ids.find((id) => typeof id !== "string" || !/^[a-zA-Z0-9]{9}$/.test(id));
    if (bad === undefined && message.role === "tool" && !message.tool_call_id) return mistralError("Tool call id has to be defined.", "invalid_request_error", null);
    if (bad !== undefined) return mistralError(mistralIdError(String(bad)), "invalid_function_call", "3280");
  }
  return undefined;
};

const roleOrder: Rule = (body) => {
  const list = messages(body);
  for (let i = 1; i < list.length; i++) {
    const [before, role] = [list[i - 1]!.role, list[i]!.role];
    if (before === "tool" && role === "user") return mistralError(MISTRAL_USER_AFTER_TOOL, "invalid_request_message_order", "3230");
    if (before === "user" && role === "tool") return mistralError(MISTRAL_TOOL_AFTER_USER, "invalid_request_message_order", "3230");
  }
  const last = list.at(-1);
  if (last?.role === "assistant" && last.prefix !== true) {
    return mistralError(MISTRAL_TRAILING_ASSISTANT, "invalid_request_message_order", "3230");
  }
  return undefined;
};

/** Pydantic's answer to an unknown field: 422 with FastAPI's `detail`. */
const nameOnlyOnTools: Rule = (body) => {
  const index = messages(body).findIndex((m) => m.role !== "tool" && m.name !== undefined);
  if (index === -1) return undefined;
  const role = messages(body)[index]!.role;
  const message = "Extra inputs are not permitted";
  return {
    status: 422,
    message,
    body: { detail: [{ type: "extra_forbidden", loc: ["body", "messages", index, role, "name"], msg: message, input: messages(body)[index]!.name }] },
  };
};

const callsAndResponses: Rule = (body) => {
  const calls = messages(body).reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
  const responses = messages(body).filter((m) => m.role === "tool").length;
  return calls === responses ? undefined : mistralError("Not the same number of function calls and responses", "invalid_request_message_order", "3230");
};

export function mistralFamily(): FakeFamily {
  const nextId = idMaker((n) => `D681PevK${n % 10}`);
  return {
    name: "mistral",
    rules: [toolCallIds, nameOnlyOnTools, roleOrder, callsAndResponses],
    reply: (body) => {
      const message = openAiStyleReply(body, nextId);
      return message.tool_calls ? { ...message, content: "" } : message;
    },
    // Mistral sends whole calls without `index` (and without `type`).
    style: { wholeCalls: true, noIndex: true, piece: 4 },
  };
}
