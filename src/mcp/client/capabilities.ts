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

/** For pools that only list (the CLI): the gateway's capabilities, no relaying (a request finds no client, as on /v1). */
export const declareGatewayCapabilities: UpstreamHandlers = (_server, upstream) => upstream.declareCapabilities(GATEWAY_CLIENT_CAPABILITIES);
