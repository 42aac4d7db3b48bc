/**
 * Each tool call's Gemini thought signature goes back exactly on that call, and only to the
 * provider that produced it (a signature is never moved to another provider).
 *
 * Gemini checks signatures strictly on the current turn (since the last user message): there the
 * first call of every step must carry one. A call made elsewhere (another provider, a fallback)
 * has none, so it gets the placeholder Gemini's docs give for foreign history; calls with a real
 * signature, and calls of earlier turns, are left as they are.
 */
import type { AssistantMessage, ToolCallBlock } from "../../../core/index.ts";
import { THOUGHT_SIGNATURE_KEY } from "../response/steps/thought-signatures-step.ts";
import { mapAssistants } from "./assistant-pairs.ts";
import type { RequestStep } from "./context.ts";
import type { WireRequest, WireRequestMessage, WireRequestToolCall } from "./wire.ts";

/** ai.google.dev/gemini-api/docs/thought-signatures: for calls that never had a signature. */
export const FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator";

function signatureOf(block: ToolCallBlock | undefined, origin: string): string | undefined {
  if (block?.providerData?.origin !== origin) return undefined;
  const signature = block.providerData.data[THOUGHT_SIGNATURE_KEY];
  return typeof signature === "string" ? signature : undefined;
}

function signed(call: WireRequestToolCall, signature: string): WireRequestToolCall {
  return { ...call, extra_content: { google: { thought_signature: signature } } };
}

function withOwnSignature(call: WireRequestToolCall, neutral: AssistantMessage, origin: string): WireRequestToolCall {
  const block = neutral.content.find((b): b is ToolCallBlock => b.type === "tool_call" && b.id === call.id);
  const signature = signatureOf(block, origin);
  return signature === undefined ? call : signed(call, signature);
}

function replayOwn(body: WireRequest, neutral: Parameters<RequestStep>[1]): WireRequest {
  return mapAssistants(body, neutral.request, (wire, message) =>
    wire.tool_calls ? { ...wire, tool_calls: wire.tool_calls.map((call) => withOwnSignature(call, message, neutral.provider)) } : wire,
  );
}

function withPlaceholder(message: WireRequestMessage): WireRequestMessage {
  const [first, ...rest] = message.tool_calls ?? [];
  if (!first || first.extra_content !== undefined) return message;
  return { ...message, tool_calls: [signed(first, FOREIGN_CALL_SIGNATURE), ...rest] };
}

function placeholdersOnCurrentTurn(body: WireRequest): WireRequest {
  const lastUser = body.messages.map((message) => message.role).lastIndexOf("user");
  return { ...body, messages: body.messages.map((message, index) => (index > lastUser ? withPlaceholder(message) : message)) };
}

export const replayThoughtSignatures: RequestStep = (body, context) => placeholdersOnCurrentTurn(replayOwn(body, context));
