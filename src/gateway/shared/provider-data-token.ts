/**
 * Provider data carried by the client instead of kept by the gateway. Clients must send some
 * things back opaque and unchanged (Anthropic's thinking signatures, the Responses API's
 * `encrypted_content`); when the gateway answers for a provider that has no such thing, or must
 * know which provider made it, it puts the neutral provider data (origin and data) in that field
 * instead, and reads it back when the client returns it: the round trip needs no state, so it
 * survives restarts and works on any instance. Providers never see these tokens.
 */
import type { ProviderData } from "../../core/index.ts";

const PREFIX = "mcpgw1.";

export function isGatewayToken(value: string): boolean {
  return value.startsWith(PREFIX);
}

export function encodeProviderData(providerData: ProviderData | undefined): string {
  return PREFIX + Buffer.from(JSON.stringify(providerData ?? null)).toString("base64url");
}

/** The provider data of a gateway token; undefined when it held none or is not one of ours. */
export function decodeProviderData(token: string): ProviderData | undefined {
  if (!isGatewayToken(token)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(token.slice(PREFIX.length), "base64url").toString("utf8")) as unknown;
    const data = value as ProviderData | null;
    return data && typeof data.origin === "string" && typeof data.data === "object" && data.data !== null ? data : undefined;
  } catch {
    return undefined;
  }
}
