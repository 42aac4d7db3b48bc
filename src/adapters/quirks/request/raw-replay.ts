/**
 * MiniMax's interleaved thinking must go back exactly as it came: the content with its
 * `<think>…</think>`, and `reasoning_details`. Both were kept on the message's reasoning block
 * (response/steps) and are re-emitted only to the provider that produced them.
 */
import type { AssistantMessage, ReasoningBlock } from "../../../core/index.ts";
import { REASONING_DETAILS_KEY } from "../response/steps/reasoning-details-step.ts";
import { RAW_CONTENT_KEY } from "../response/steps/think-tags-step.ts";
import { splitThinkTags } from "../response/think-tags.ts";
import { mapAssistants } from "./assistant-pairs.ts";
import type { RequestStep } from "./context.ts";

function ownData(message: AssistantMessage, origin: string, key: string): unknown {
  const block = message.content.find(
    (b): b is ReasoningBlock => b.type === "reasoning" && b.providerData?.origin === origin && key in b.providerData.data,
  );
  return block?.providerData?.data[key];
}

/**
 * The raw content replaces the message's text only while it still says the same thing: if the
 * visible text was changed since (a client edited its history), the edit wins.
 */
export const replayThinkContent: RequestStep = (body, context) =>
  mapAssistants(body, context.request, (wire, neutral) => {
    const raw = ownData(neutral, context.provider, RAW_CONTENT_KEY);
    if (typeof raw !== "string") return wire;
    const visible = typeof wire.content === "string" ? wire.content : "";
    return splitThinkTags(raw).text === visible ? { ...wire, content: raw } : wire;
  });

export const replayReasoningDetails: RequestStep = (body, context) =>
  mapAssistants(body, context.request, (wire, neutral) => {
    const details = ownData(neutral, context.provider, REASONING_DETAILS_KEY);
    return Array.isArray(details) ? { ...wire, reasoning_details: details } : wire;
  });
