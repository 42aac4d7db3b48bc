/**
 * DeepSeek's thinking mode wants the reasoning of every assistant turn with tool calls back "in
 * all subsequent requests" (else: "Missing `reasoning_content` field in the assistant message at
 * message index N"); "" stands in where it is unknown (a turn from another provider). The R1-era
 * `deepseek-reasoner` (before V3.1) refused the very same field, so models listed in
 * replayReasoningExceptModels (for deployments of such models) never get it. Both steps take that list compiled once
 * (modelMatcher), when the adapter's steps are built.
 */
import { ownReasoning } from "../../openai-chat/reasoning.ts";
import { mapAssistants } from "./assistant-pairs.ts";
import type { RequestStep } from "./context.ts";
import type { ModelMatcher } from "./model-patterns.ts";
import type { WireRequestMessage } from "./wire.ts";

export function replayReasoning(excepted: ModelMatcher): RequestStep {
  return (body, context) => {
    const { replayReasoning: mode, reasoningField: field } = context.quirks;
    if (mode === "off" || excepted(body.model)) return body;
    return mapAssistants(body, context.request, (wire, neutral) => {
      const toolTurn = Boolean(wire.tool_calls?.length);
      const reasoning = ownReasoning(neutral, context.provider);
      if (mode === "tool-turns" && !toolTurn) return wire;
      if (reasoning === "" && !toolTurn) return wire;
      return { ...wire, [field]: reasoning };
    });
  };
}

function withoutReasoning(message: WireRequestMessage): WireRequestMessage {
  if (message.reasoning_content === undefined && message.reasoning === undefined) return message;
  const { reasoning_content: _content, reasoning: _reasoning, ...rest } = message;
  return rest;
}

/** Whatever put reasoning on the messages (a wire option, an earlier step): not for these models. */
export function stripReasoningForModels(excepted: ModelMatcher): RequestStep {
  return (body) => (excepted(body.model) ? { ...body, messages: body.messages.map(withoutReasoning) } : body);
}
