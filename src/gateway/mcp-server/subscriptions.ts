/**
 * The gateway's resource subscriptions to its upstream servers: one upstream subscription per
 * URI, however many clients want its updates — 2025-11-25 sessions (`resources/subscribe`) and
 * 2026-07-28 `subscriptions/listen` streams (their `resourceSubscriptions`). It is taken when the
 * first one asks, and let go when the last one no longer does; a server that restarts is
 * subscribed again (`urisOf`).
 */
import { ResultSchema } from "@modelcontextprotocol/core";
import type { Logger } from "../../core/logger.ts";
import { serverAllowed, type KeyPolicy } from "../shared/keys.ts";
import { forwardRequest, type ProgressRoutes } from "./forward.ts";
import type { ResourceRouter } from "./resources.ts";
import type { DownstreamSession, RequestExtra, Upstream } from "./types.ts";

export interface UpstreamSubscriptionsDeps {
  sessions: ReadonlyMap<string, DownstreamSession>;
  resources: ResourceRouter;
  upstream(name: string): Upstream | undefined;
  progress: ProgressRoutes;
  logger: Logger;
}

export class UpstreamSubscriptions {
  /** URI -> the server the gateway subscribed to it upstream. */
  private readonly servers = new Map<string, string>();
  /** URI -> how many open 2026-07-28 listen streams asked for its updates. */
  private readonly listenHolds = new Map<string, number>();

  constructor(private readonly deps: UpstreamSubscriptionsDeps) {}

  /** URIs owned by `server` that some client wants the updates of. */
  urisOf(server: string): string[] {
    const uris = new Set<string>();
    for (const session of this.deps.sessions.values()) {
      for (const uri of session.subscriptions) if (this.servers.get(uri) === server) uris.add(uri);
    }
    for (const uri of this.listenHolds.keys()) if (this.servers.get(uri) === server) uris.add(uri);
    return [...uris];
  }

  /** Subscribes upstream to `uri` unless the gateway already is; `extra`: the client request that asks (its cancellation cancels it). */
  async ensure(uri: string, upstream: Upstream, extra?: RequestExtra): Promise<void> {
    if (this.servers.has(uri)) return;
    if (extra) await forwardRequest(upstream.client, "resources/subscribe", { uri }, ResultSchema, { extra, timeoutMs: upstream.timeoutMs, progress: this.deps.progress });
    else await upstream.client.request({ method: "resources/subscribe", params: { uri } }, ResultSchema, { timeoutMs: upstream.timeoutMs });
    this.servers.set(uri, upstream.name);
  }

  /** Unsubscribes upstream from `uri` once no client (session or listen stream) wants its updates. */
  async release(uri: string, extra?: RequestExtra): Promise<void> {
    const server = this.servers.get(uri);
    if (server === undefined || this.listenHolds.has(uri)) return;
    for (const other of this.deps.sessions.values()) if (other.subscriptions.has(uri)) return;
    this.servers.delete(uri);
    const upstream = this.deps.upstream(server);
    if (!upstream) return;
    if (extra) await forwardRequest(upstream.client, "resources/unsubscribe", { uri }, ResultSchema, { extra, timeoutMs: upstream.timeoutMs, progress: this.deps.progress });
    else await upstream.client.request({ method: "resources/unsubscribe", params: { uri } }, ResultSchema, { timeoutMs: upstream.timeoutMs });
  }

  /**
   * Updates of `uris` for a 2026-07-28 listen stream (those of the key's servers). The returned
   * function lets go (when the stream ends). A URI no server has is skipped (logged).
   */
  async hold(uris: readonly string[], key: KeyPolicy | undefined): Promise<() => void> {
    const held: string[] = [];
    await Promise.all(
      uris.map(async (uri) => {
        try {
          const upstream = await this.deps.resources.ownerOf(uri);
          if (!serverAllowed(key, upstream.name)) return;
          this.listenHolds.set(uri, (this.listenHolds.get(uri) ?? 0) + 1);
          held.push(uri);
          if (upstream.capabilities.resources?.subscribe) await this.ensure(uri, upstream);
        } catch (error) {
          this.deps.logger.warn({ uri, err: String(error) }, "could not subscribe upstream for a subscriptions/listen stream");
        }
      }),
    );
    return () => {
      for (const uri of held) {
        const count = (this.listenHolds.get(uri) ?? 1) - 1;
        if (count > 0) this.listenHolds.set(uri, count);
        else this.listenHolds.delete(uri);
        this.release(uri).catch((error: unknown) => this.deps.logger.debug({ uri, err: String(error) }, "resources/unsubscribe failed"));
      }
    };
  }
}
