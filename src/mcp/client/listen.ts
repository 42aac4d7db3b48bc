/**
 * The `subscriptions/listen` stream of a 2026-07-28 connection: the only way such a server tells
 * its client that its tools, prompts or resources changed. The gateway keeps one open for as long
 * as the connection is in use, and opens it again — with backoff — whenever it ends: a stateless
 * server behind a load balancer ends every stream (gracefully) on each redeploy, and the reopen
 * may itself fail while the new instances come up.
 */
import type { Client, McpSubscription } from "@modelcontextprotocol/client";
import type { Logger } from "../../core/logger.ts";
import { Backoff } from "./backoff.ts";

/** What the gateway relays (its handlers for these notifications are registered on the client). */
const FILTER = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };

/** A stream open this long was healthy: the next reopen starts the backoff over. */
const STABLE_AFTER_MS = 10_000;

/** JSON-RPC errors that opening again will not change: the server does not do listen (or not this filter). */
const FOR_GOOD = new Set([-32601, -32602]);

export interface ListenOptions {
  server: string;
  logger: Logger;
  /** Whether the client is still the connection's current one (listening stops when not). */
  current: () => boolean;
  /** Called after a reopened stream is acknowledged: changes made while none was open were not told. */
  reopened?: () => void;
  backoff?: Backoff;
}

/**
 * Keeps the stream open while `current()`. Ends when the client closes its subscription (or
 * itself), when the server refuses listen for good, or when it honours none of the filter.
 */
export async function listenForChanges(client: Client, options: ListenOptions): Promise<void> {
  const backoff = options.backoff ?? new Backoff(500, 30_000);
  let failing = false;
  for (let attempt = 0; options.current(); attempt++) {
    const subscription = await open(client, options, failing);
    if (subscription === "give up") return;
    if (subscription === undefined) {
      failing = true;
    } else {
      if (failing) options.logger.info({ server: options.server }, "subscriptions/listen to a 2026-07-28 MCP server open again");
      failing = false;
      if (attempt > 0) options.reopened?.();
      if (Object.keys(subscription.honoredFilter).length === 0) return;
      const since = Date.now();
      if ((await subscription.closed) === "local") return;
      if (Date.now() - since >= STABLE_AFTER_MS) backoff.reset();
    }
    if (!options.current()) return;
    await new Promise((resolve) => setTimeout(resolve, backoff.next()).unref());
  }
}

/** One listen; undefined when it failed and may be tried again. A failure is logged once per outage. */
async function open(client: Client, options: ListenOptions, failing: boolean): Promise<McpSubscription | "give up" | undefined> {
  try {
    return await client.listen(FILTER);
  } catch (error) {
    if (!options.current()) return "give up";
    const code = (error as { code?: unknown }).code;
    const forGood = typeof code === "number" && FOR_GOOD.has(code);
    const message = error instanceof Error ? error.message : String(error);
    if (forGood) options.logger.warn({ server: options.server, err: message }, "a 2026-07-28 MCP server refuses subscriptions/listen: its list changes are not seen");
    else if (!failing) options.logger.warn({ server: options.server, err: message }, "subscriptions/listen to a 2026-07-28 MCP server failed: its list changes are not seen until it is open again (retried with backoff)");
    else options.logger.debug({ server: options.server, err: message }, "subscriptions/listen retry failed");
    return forGood ? "give up" : undefined;
  }
}
