/**
 * The request a piece of work belongs to, carried by the async context (AsyncLocalStorage): the
 * HTTP app enters it once per request, and every log line written while that request's work
 * runs — in the loop, an adapter, the MCP client, a store — carries its id without each caller
 * passing it (the logger's mixin reads it). Work started for no request (a server's restart, a
 * timer) has none.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const storage = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it starts) as part of request `id`. */
export function withRequestId<T>(id: string, work: () => T): T {
  return storage.run(id, work);
}

/** The id of the request the current work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return storage.getStore();
}
