/**
 * Thinking from providers that do not sign it (DeepSeek's `reasoning_content`, `<think>` text,
 * MiniMax's reasoning details) goes to Anthropic clients as `thinking` blocks, which must carry a
 * signature: the gateway's token (../../shared/provider-data-token.ts), holding the provider data
 * the reasoning needs on its way back. Anthropic never sees these: they are taken out of what it
 * is sent.
 */
import type { ReasoningBlock } from "../../../core/index.ts";
import { decodeProviderData, encodeProviderData, isGatewayToken } from "../../shared/provider-data-token.ts";

/** Where a client's Anthropic-made thinking came from: not a provider name (those hold no ':'). */
export const CLIENT_ORIGIN = "client:anthropic-messages";

export const isGatewaySignature = isGatewayToken;
export const gatewaySignature = encodeProviderData;

/** A client's thinking block as neutral reasoning: the gateway's own signature decoded, Anthropic's kept. */
export function reasoningFromThinking(text: string, signature: string): ReasoningBlock {
  if (!isGatewaySignature(signature)) return { type: "reasoning", text, providerData: { origin: CLIENT_ORIGIN, data: { signature } } };
  const providerData = decodeProviderData(signature);
  return { type: "reasoning", text, ...(providerData ? { providerData } : {}) };
}

/**
 * The signature a reasoning block goes to the client with: Anthropic's own, byte for byte, when
 * an Anthropic provider made it; the gateway's otherwise.
 */
export function signatureFor(block: ReasoningBlock, isAnthropic: (origin: string) => boolean): string {
  const data = block.providerData;
  const signature = data?.data["signature"];
  if (data && isAnthropic(data.origin) && typeof signature === "string") return signature;
  return gatewaySignature(data);
}

/** The data of a redacted thinking block for the client: Anthropic's own, or the gateway's encoding. */
export function redactedDataFor(block: ReasoningBlock, isAnthropic: (origin: string) => boolean): string {
  const data = block.providerData;
  const redacted = data?.data["redactedData"];
  if (data && isAnthropic(data.origin) && typeof redacted === "string") return redacted;
  return gatewaySignature(data);
}
