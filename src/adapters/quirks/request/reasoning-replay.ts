/**
 * DeepSeek's thinking mode wants the reasoning of every assistant turn with tool calls back "in
 * all subsequent requests" (else: "Missing `reasoning_content` field in the assistant message at
 * message index N"); "" stands in where it is unknown (a turn from another provider). Its legacy
 * `deepseek-reasoner` refuses the very same field, so models listed in
 * replayReasoningExceptModels never get it.
 */
import { ownReasoning } from "../../openai-chat/to-messages.ts";
import { mapAssistants } from "./assistant-pairs.ts";
import type { RequestStep } from "./context.ts";
import { matchesModel } from "./model-patterns.ts";
import type { WireRequestMessage } from "./wire.ts";

export const replayReasoning: RequestStep = (body, context) => {
  const { replayReasoning: mode, reasoningField: field, replayReasoningExceptModels: except } = context.quirks;
  if (mode === "off" || matchesModel(body.model, except)) return body;
  return mapAssistants(body, context.request, (wire, neutral) => {
    const toolTurn = Boolean(wire.tool_calls?.length);
    const reasoning = ownReasoning(neutral, context.provider);
    if (mode === "tool-turns" && !toolTurn) return wire;
    if (reasoning === "" && !toolTurn) return wire;
    return { ...wire, [field]: reasoning };
  });
};

function withoutReasoning(message: WireRequestMessage): WireRequestMessage {
  if (message.reasoning_content === undefined && message.reasoning === undefined) return message;
  const { reasoning_content: _content, reasoning: _reasoning, ...rest } = message;
  return rest;
}

/** Whatever put reasoning on the messages (a wire option, an earlier step): not for these models. */
export const stripReasoningForModels: RequestStep = (body, context) =>
  matchesModel(body.model, context.quirks.replayReasoningExceptModels)
    ? { ...body, messages: body.messages.map(withoutReasoning) }
    : body;
