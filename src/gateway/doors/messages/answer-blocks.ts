/**
 * The blocks of an answer as an Anthropic client sees them: every turn's thinking (signed) and
 * text, the client's tool calls, and server tool blocks from Anthropic — one block per turn and
 * kind, never merged, so each thinking block keeps the signature it was made with. The MCP
 * calls the gateway ran are not among them.
 */
import type { ProviderData, ReasoningBlock } from "../../../core/index.ts";
import type { LoopOutcome } from "../../../loop/index.ts";
import { redactedDataFor, signatureFor } from "./signatures.ts";

/** Whether a provider (by config name) speaks Anthropic's protocol: its signatures go out as they are. */
export type IsAnthropic = (origin: string) => boolean;

export type ThinkingOut = { type: "thinking"; thinking: string; signature: string } | { type: "redacted_thinking"; data: string };

export type AnswerBlock =
  | ThinkingOut
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: { [key: string]: unknown } }
  | { [key: string]: unknown; type: string };

export function thinkingOut(block: ReasoningBlock, isAnthropic: IsAnthropic): ThinkingOut {
  if (block.redacted) return { type: "redacted_thinking", data: redactedDataFor(block, isAnthropic) };
  return { type: "thinking", thinking: block.text, signature: signatureFor(block, isAnthropic) };
}

/** A tool call's fields from Anthropic beyond id, name and input (`caller`): for Anthropic clients, as they came. */
export function anthropicFields(providerData: ProviderData | undefined, isAnthropic: IsAnthropic): object {
  return providerData && isAnthropic(providerData.origin) ? ((providerData.data["fields"] as object | undefined) ?? {}) : {};
}

export function answerBlocks(outcome: LoopOutcome, isAnthropic: IsAnthropic): AnswerBlock[] {
  const clientCalls = new Set(outcome.clientToolCalls.map((call) => call.id));
  const blocks: AnswerBlock[] = [];
  for (const message of outcome.newMessages) {
    if (message.role !== "assistant") continue;
    for (const block of message.content) {
      switch (block.type) {
        case "reasoning":
          if (block.text !== "" || block.redacted || block.providerData) blocks.push(thinkingOut(block, isAnthropic));
          break;
        case "text":
          if (block.text !== "") blocks.push({ type: "text", text: block.text });
          break;
        case "tool_call":
          if (clientCalls.has(block.id)) blocks.push({ ...anthropicFields(block.providerData, isAnthropic), type: "tool_use", id: block.id, name: block.name, input: block.arguments });
          break;
        case "opaque":
          if (isAnthropic(block.providerData.origin)) blocks.push(block.providerData.data["block"] as AnswerBlock);
          break;
      }
    }
  }
  return blocks;
}
