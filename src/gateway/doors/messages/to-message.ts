/** The loop's outcome as an Anthropic `message` object (the non-streamed answer). */
import type { LoopOutcome } from "../../../loop/index.ts";
import { gatewayInfo, type GatewayInfo } from "../../shared/gateway-info.ts";
import { answerBlocks, type AnswerBlock, type IsAnthropic } from "./answer-blocks.ts";
import { toStopReason } from "./stop-reason.ts";
import { toAnthropicUsage, type AnthropicUsage } from "./usage.ts";

export interface AnthropicMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: AnswerBlock[];
  stop_reason: ReturnType<typeof toStopReason>;
  stop_sequence: string | null;
  usage: AnthropicUsage;
  /** What the gateway did (an extra field: Anthropic clients ignore it). */
  mcp_gateway: GatewayInfo;
}

export function toAnthropicMessage(outcome: LoopOutcome, id: string, model: string, isAnthropic: IsAnthropic): AnthropicMessage {
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: answerBlocks(outcome, isAnthropic),
    stop_reason: toStopReason(outcome),
    stop_sequence: outcome.stopReason === "stop" && outcome.last.stopSequence ? outcome.last.stopSequence : null,
    usage: toAnthropicUsage(outcome.usage),
    mcp_gateway: gatewayInfo(outcome),
  };
}
