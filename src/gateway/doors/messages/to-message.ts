/** The loop's outcome as an Anthropic `message` object (the non-streamed answer). */
import type { LoopOutcome } from "../../../loop/index.ts";
import { gatewayInfo, type GatewayInfo } from "../../shared/gateway-info.ts";
import { answerBlocks, type AnswerBlock, type IsAnthropic } from "./answer-blocks.ts";
import { stopSequenceOf, toStopReason } from "./stop-reason.ts";
import { answerUsage, type AnthropicUsage } from "./usage.ts";

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
  const stopReason = toStopReason(outcome, isAnthropic);
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content: answerBlocks(outcome, isAnthropic),
    stop_reason: stopReason,
    stop_sequence: stopSequenceOf(outcome, stopReason),
    usage: answerUsage(outcome),
    mcp_gateway: gatewayInfo(outcome),
  };
}
