/** The loop's outcome as a standard `chat.completion` object. */
import { argumentText } from "../../shared/argument-relay.ts";
import type { AssistantMessage, ToolCallBlock } from "../../../core/index.ts";
import type { LoopOutcome } from "../../../loop/index.ts";
import { toFinishReason, type FinishReason } from "./finish-reason.ts";
import { gatewayInfo, type GatewayInfo } from "../../shared/gateway-info.ts";
import { toOpenAIUsage, type OpenAIUsage } from "./usage.ts";

export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  choices: [
    {
      index: 0;
      message: {
        role: "assistant";
        content: string | null;
        refusal: null;
        reasoning_content?: string;
        tool_calls?: OpenAIToolCall[];
      };
      finish_reason: FinishReason;
      logprobs: null;
    },
  ];
  usage: OpenAIUsage;
  mcp_gateway: GatewayInfo;
}

export function toOpenAIToolCall(call: ToolCallBlock): OpenAIToolCall {
  return { id: call.id, type: "function", function: { name: call.name, arguments: argumentText(call) } };
}

export function assistantParts(message: AssistantMessage): { text: string; reasoning: string; calls: ToolCallBlock[] } {
  let text = "";
  let reasoning = "";
  const calls: ToolCallBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "reasoning") reasoning += block.text;
    else if (block.type === "tool_call") calls.push(block);
  }
  return { text, reasoning, calls };
}

export function toChatCompletion(outcome: LoopOutcome, id: string, model: string, created: number): ChatCompletion {
  const { text, reasoning, calls } = assistantParts(outcome.message);
  return {
    id,
    object: "chat.completion",
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text === "" && calls.length > 0 ? null : text,
          refusal: null,
          ...(reasoning === "" ? {} : { reasoning_content: reasoning }),
          ...(calls.length === 0 ? {} : { tool_calls: calls.map(toOpenAIToolCall) }),
        },
        finish_reason: toFinishReason(outcome.stopReason),
        logprobs: null,
      },
    ],
    usage: toOpenAIUsage(outcome.usage),
    mcp_gateway: gatewayInfo(outcome),
  };
}
