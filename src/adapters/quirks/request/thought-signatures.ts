/**
 * Each tool call's Gemini thought signature goes back exactly on that call, and only to the
 * provider that produced it (a signature is never forged or moved to another provider).
 */
import type { AssistantMessage, ToolCallBlock } from "../../../core/index.ts";
import { THOUGHT_SIGNATURE_KEY } from "../response/steps/thought-signatures-step.ts";
import { mapAssistants } from "./assistant-pairs.ts";
import type { RequestStep } from "./context.ts";
import type { WireRequestToolCall } from "./wire.ts";

function signatureOf(block: ToolCallBlock | undefined, origin: string): string | undefined {
  if (block?.providerData?.origin !== origin) return undefined;
  const signature = block.providerData.data[THOUGHT_SIGNATURE_KEY];
  return typeof signature === "string" ? signature : undefined;
}

function withSignature(call: WireRequestToolCall, neutral: AssistantMessage, origin: string): WireRequestToolCall {
  const block = neutral.content.find((b): b is ToolCallBlock => b.type === "tool_call" && b.id === call.id);
  const signature = signatureOf(block, origin);
  return signature === undefined ? call : { ...call, extra_content: { google: { thought_signature: signature } } };
}

export const replayThoughtSignatures: RequestStep = (body, context) =>
  mapAssistants(body, context.request, (wire, neutral) =>
    wire.tool_calls ? { ...wire, tool_calls: wire.tool_calls.map((call) => withSignature(call, neutral, context.provider)) } : wire,
  );
