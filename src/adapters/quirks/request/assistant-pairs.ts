/**
 * Replaying provider data needs the neutral message each wire assistant message was built from.
 * The base translation turns every neutral assistant message into exactly one wire assistant
 * message, in order, so the n-th of one is the n-th of the other (as long as no step has added
 * messages yet: replay steps run first).
 */
import type { AssistantMessage, ChatRequest } from "../../../core/index.ts";
import type { WireRequest, WireRequestMessage } from "./wire.ts";

export type AssistantMapper = (wire: WireRequestMessage, neutral: AssistantMessage) => WireRequestMessage;

export function mapAssistants(body: WireRequest, request: ChatRequest, mapper: AssistantMapper): WireRequest {
  const neutral = request.messages.filter((message): message is AssistantMessage => message.role === "assistant");
  const wireCount = body.messages.filter((message) => message.role === "assistant").length;
  // Not built from this request (a caller's own `messages` in `extra`): nothing to pair safely.
  if (wireCount !== neutral.length) return body;
  let next = 0;
  const messages = body.messages.map((message) => (message.role === "assistant" ? mapper(message, neutral[next++]!) : message));
  return { ...body, messages };
}
