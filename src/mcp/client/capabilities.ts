/**
 * The client capabilities the gateway declares to every MCP server: it relays sampling,
 * elicitation and roots between servers and its own clients. Servers offer some tools only to
 * clients with these (server-everything's sampling and elicitation tools), so every pool that
 * lists tools — `serve`, `stdio`, and the `tools` and `check` commands — declares the same set,
 * and what they show is what a model gets.
 */
import type { ClientCapabilities } from "@modelcontextprotocol/client";
import type { UpstreamHandlers } from "./upstream.ts";

export const GATEWAY_CLIENT_CAPABILITIES: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

/**
 * What the gateway can serve itself when no MCP client is there to ask (a model's tool call on
 * /v1, /v1/messages, /v1/responses): sampling, when gateway.sampling.model answers it. Nothing
 * else: elicitation needs a user, roots a client's folders. A server's tools that it lists only
 * to clients with more than this are offered to MCP clients only (see model-tools-probe.ts).
 */
export function modelSurfaceCapabilities(samplingModel: string | undefined): ClientCapabilities {
  return samplingModel ? { sampling: {} } : {};
}

/** For pools that only list (the CLI): the gateway's capabilities, no relaying (a request finds no client, as on /v1). */
export const declareGatewayCapabilities: UpstreamHandlers = (_server, upstream) => upstream.declareCapabilities(GATEWAY_CLIENT_CAPABILITIES);
