/**
 * What the adapter keeps of Gemini's answer in neutral provider data (origin: the provider's
 * config name), to send back exactly where it came from:
 * - `thoughtSignature` on a text, thought (reasoning) or function-call block: the part's signature;
 * - `wireId` on a function call whose id Gemini gave (only such ids go back on the wire);
 * - `part` on an opaque block: a part the neutral model has no words for (inline media,
 *   executable code and its result, server-side tool calls), verbatim.
 */
import type { ProviderData } from "../../core/index.ts";

export const THOUGHT_SIGNATURE_KEY = "thoughtSignature";
export const WIRE_ID_KEY = "wireId";
export const WIRE_PART_KEY = "part";

/** The data, when this provider produced it. */
export function ownData(providerData: ProviderData | undefined, origin: string): { [key: string]: unknown } | undefined {
  return providerData?.origin === origin ? providerData.data : undefined;
}

export function providerData(origin: string, data: { [key: string]: unknown }): { providerData?: ProviderData } {
  return Object.keys(data).length > 0 ? { providerData: { origin, data } } : {};
}
