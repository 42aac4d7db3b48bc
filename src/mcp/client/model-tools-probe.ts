/**
 * Which of a server's tools a model may be offered. The gateway's session with each server
 * declares the capabilities of its MCP clients (sampling, elicitation, roots), and a server may
 * list some tools only to clients that have them (server-everything's elicitation and sampling
 * tools). Through /v1 there is no MCP client to relay such a request to, so those tools could
 * never succeed there. Capabilities are per session in MCP 2025-11-25, so the only way to learn
 * what a server lists without them is to ask it in a second, short session that declares only
 * what the gateway can serve itself: that list is what models get.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../../core/config/index.ts";
import { connectClient, type TransportHooks } from "./transport.ts";

/**
 * The names of the tools the server lists to `client` (a new client declaring only what the
 * gateway can serve itself). The caller creates the client and closes it, whatever happens.
 */
export async function listToolNamesAs(client: Client, config: ServerConfig, timeoutMs: number, hooks: Pick<TransportHooks, "marker" | "prior">): Promise<Set<string>> {
  // Its stderr is read and dropped: a full pipe would stall a chatty server mid-start.
  await connectClient(client, config, timeoutMs, { ...hooks, onStderr: () => undefined });
  const { tools } = await client.listTools(undefined, { timeout: timeoutMs });
  return new Set(tools.map((tool) => tool.name));
}
