/**
 * The logging level the gateway asks of its upstream servers (`logging/setLevel`, a 2025-era
 * method): the most verbose any connected client wants, so that one client asking for "error"
 * does not silence the "debug" another asked for (each client still receives only its own level
 * and above: ./client-relay.ts). A server that restarts gets it again (`current`).
 */
import { ResultSchema } from "@modelcontextprotocol/core";
import type { LoggingLevel } from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.ts";
import { LEVELS } from "./client-relay.ts";
import { forwardRequest, type ProgressRoutes } from "./forward.ts";
import type { DownstreamSession, RequestExtra, Upstream } from "./types.ts";

export interface UpstreamLogLevelDeps {
  sessions: ReadonlyMap<string, DownstreamSession>;
  upstreams(): Upstream[];
  progress: ProgressRoutes;
  logger: Logger;
}

export class UpstreamLogLevel {
  /** The level last sent to the upstream servers (undefined: none, or not known to be in force). */
  private inForce: LoggingLevel | undefined;

  constructor(private readonly deps: UpstreamLogLevelDeps) {}

  /** The level a (re)connected server should be given, if any. */
  get current(): LoggingLevel | undefined {
    return this.inForce;
  }

  /** The most verbose level any connected client asked for, if any did. */
  private wanted(): LoggingLevel | undefined {
    let most: number | undefined;
    for (const session of this.deps.sessions.values()) {
      if (session.logLevel !== undefined) most = Math.min(most ?? LEVELS.length, LEVELS.indexOf(session.logLevel));
    }
    return most === undefined ? undefined : LEVELS[most];
  }

  /**
   * Sends the level the connected clients want to every upstream server that logs, when it
   * differs from the one in force. `extra`: the client request that caused it (its
   * cancellation cancels the forwards).
   */
  async apply(extra: RequestExtra | undefined): Promise<void> {
    const wanted = this.wanted();
    if (wanted === undefined || wanted === this.inForce) return;
    this.inForce = wanted;
    // logging/setLevel is of the 2025 era (a 2026-07-28 server gets the level per request).
    const loggers = this.deps.upstreams().filter((u) => u.capabilities.logging !== undefined && u.client.era === "legacy");
    await Promise.all(
      loggers.map((u) => {
        const sent = extra
          ? forwardRequest(u.client, "logging/setLevel", { level: wanted }, ResultSchema, { extra, timeoutMs: u.timeoutMs, progress: this.deps.progress })
          : u.client.request({ method: "logging/setLevel", params: { level: wanted } }, ResultSchema, { timeoutMs: u.timeoutMs });
        return sent.catch((error: unknown) => {
          // Not known to be in force: the next change sends it again rather than skipping.
          if (this.inForce === wanted) this.inForce = undefined;
          this.deps.logger.warn({ server: u.name, err: String(error) }, "forwarding logging/setLevel failed");
        });
      }),
    );
  }
}
