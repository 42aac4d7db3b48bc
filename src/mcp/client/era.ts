/**
 * Which MCP protocol era the gateway speaks to an upstream server: 2025-11-25 (`initialize`,
 * a session) or 2026-07-28 (`server/discover`, stateless). `era: "auto"` probes once with
 * server/discover (the SDK falls back to initialize); the verdict is kept, so a restart or
 * reconnect adopts it with no round trip (a modern verdict that went stale fails loudly, and the
 * next start probes again). A modern connection receives list changes only on a
 * `subscriptions/listen` stream (./listen.ts).
 */
import type { Client, PriorDiscovery, VersionNegotiationOptions } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../../core/config/index.ts";

/** The SDK's negotiation for a server's `era` (undefined: the 2025 handshake, no probe). */
export function versionNegotiation(config: ServerConfig, probeTimeoutMs: number): VersionNegotiationOptions | undefined {
  if (config.era === "2025-11-25") return undefined;
  if (config.era === "2026-07-28") return { mode: { pin: "2026-07-28" }, probe: { timeoutMs: probeTimeoutMs } };
  return { mode: "auto", probe: { timeoutMs: probeTimeoutMs } };
}

/** What the last successful connect found out about a server's era (for "auto"). */
export class EraVerdict {
  private verdict: PriorDiscovery | undefined;

  /** The verdict to connect with, if one is known. */
  get prior(): PriorDiscovery | undefined {
    return this.verdict;
  }

  remember(client: Client, config: ServerConfig): void {
    if (config.era !== "auto") return;
    const discover = client.getDiscoverResult();
    this.verdict = discover ? { kind: "modern", discover } : { kind: "legacy" };
  }

  /** A connect with the kept verdict failed: the next one probes again. */
  forget(): void {
    this.verdict = undefined;
  }
}

/** The era a connected client speaks. */
export function eraOf(client: Client): "modern" | "legacy" {
  return client.getProtocolEra() === "modern" ? "modern" : "legacy";
}
