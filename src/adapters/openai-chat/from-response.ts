import type { AssistantContent, ChatResult, ToolCallBlock } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { toStopReason } from "./finish-reason.ts";
import { readReasoning, toReasoningBlock } from "./reasoning.ts";
import { synthesizeToolCallId, toToolCallBlock } from "./tool-call.ts";
import { findUsage, toUsage } from "./usage.ts";
import { firstChoice, type WireCompletion, type WireContentPart, type WireMessageFields, type WireToolCall } from "./wire-types.ts";

export interface ResponseContext {
  /** The provider id (config key): stamped on errors and on reasoning provider data. */
  provider: string;
  /** The requested model, used when the response does not name one. */
  model: string;
}

/** Message content as text: a string, or the text parts of a content array. */
export function contentText(content: WireMessageFields["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part: WireContentPart) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("");
}

function toToolCalls(calls: WireToolCall[] | null | undefined): ToolCallBlock[] {
  return (calls ?? []).map((call) =>
    toToolCallBlock(call.id || synthesizeToolCallId(), call.function?.name ?? "", call.function?.arguments ?? ""),
  );
}

/** Reasoning first, then text, then the refusal (as text), then tool calls. */
function toContent(message: WireMessageFields, origin: string, toolCalls: ToolCallBlock[]): AssistantContent[] {
  const content: AssistantContent[] = [];
  const reasoning = readReasoning(message);
  if (reasoning) content.push(toReasoningBlock(reasoning.text, reasoning.field, origin));
  const text = contentText(message.content);
  if (text !== "") content.push({ type: "text", text });
  if (message.refusal) content.push({ type: "text", text: message.refusal });
  content.push(...toolCalls);
  return content;
}

function isCompletion(body: unknown): body is WireCompletion {
  return typeof body === "object" && body !== null && Array.isArray((body as WireCompletion).choices);
}

/** A non-streamed `chat.completion` body as a neutral result (choice 0 only). */
export function fromChatCompletion(body: unknown, context: ResponseContext): ChatResult {
  if (!isCompletion(body)) {
    throw upstreamProtocolError(context.provider, "the response is not a chat completion (no `choices` array)");
  }
  const choice = firstChoice(body.choices);
  if (!choice?.message) throw upstreamProtocolError(context.provider, "the response has no choice 0 message");
  const toolCalls = toToolCalls(choice.message.tool_calls);
  const refused = Boolean(choice.message.refusal);
  return {
    id: body.id ?? "",
    model: body.model || context.model,
    message: { role: "assistant", content: toContent(choice.message, context.provider, toolCalls) },
    stopReason: refused ? "content_filter" : toStopReason(choice.finish_reason, toolCalls.length > 0),
    usage: toUsage(findUsage(body)),
  };
}
