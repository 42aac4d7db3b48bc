/** The loop's outcome as a standard `chat.completion` object. */
import { isDeepStrictEqual } from "node:util";
import { repairedArgumentText } from "../../../adapters/tool-arguments.ts";
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

/**
 * The model's own argument text when it is valid JSON; the repaired text when jsonrepair had
 * to fix it (jsonrepair's own text, which keeps the model's valid start, so a stream can send
 * that start before the repair is known; the serialized arguments when they differ from it);
 * the broken text itself when it could not be repaired (the client decides, rather than
 * running its tool with `{}`).
 */
export function argumentText(call: ToolCallBlock): string {
  if (call.argumentsError !== undefined) return call.rawArguments;
  if (call.rawArguments.trim() === "") return JSON.stringify(call.arguments);
  try {
    JSON.parse(call.rawArguments);
    return call.rawArguments;
  } catch {
    return repairedText(call) ?? JSON.stringify(call.arguments);
  }
}

function repairedText(call: ToolCallBlock): string | undefined {
  const text = repairedArgumentText(call.rawArguments);
  if (text === undefined) return undefined;
  try {
    return isDeepStrictEqual(JSON.parse(text), call.arguments) ? text : undefined;
  } catch {
    return undefined;
  }
}

export function assistantParts(message: AssistantMessage): { text: string; reasoning: string; calls: ToolCallBlock[] } {
  let text = "";
  let reasoning = "";
  const calls: ToolCallBlock[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "reasoning") reasoning += block.text;
    else calls.push(block);
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
