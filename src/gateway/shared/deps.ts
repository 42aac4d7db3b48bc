import type { ToolSet } from "../../core/index.ts";
import type { GatewayConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { DeploymentRouter } from "../routing/deployments.ts";
import type { ProviderEntry } from "../routing/providers.ts";
import type { HiddenStepsKeeper } from "../state/hidden-steps.ts";
import type { ResponseStore } from "../state/responses.ts";
import type { RetryPolicy } from "../routing/retry-policy.ts";
import type { KeyLimits } from "./key-limits.ts";
import type { ToolHints } from "./tool-policy.ts";
import type { CompactionState } from "../../loop/index.ts";
import type { StateStore } from "../state/store.ts";

/** The gateway's tools, narrowed per request. */
export interface GatewayTools {
  /** Names of the configured (enabled) MCP servers. */
  serverNames(): string[];
  /** The tools of these servers (all when undefined); a snapshot that stays valid for the request. */
  select(servers: readonly string[] | undefined): ToolSet;
  /** The server and original name of a gateway tool (for protocols that name them: Responses' `mcp_call`). */
  origin?(name: string): { server: string; tool: string } | undefined;
  /** The exposed name of a server's tool (the way back from a protocol that names server and tool). */
  exposed?(server: string, tool: string): string | undefined;
}

/** Everything a chat request needs from the running gateway. */
export interface ChatDeps {
  config: GatewayConfig;
  providers: ReadonlyMap<string, ProviderEntry>;
  tools: GatewayTools;
  hiddenSteps: HiddenStepsKeeper;
  /** The Responses API's stored responses (in memory when not given). */
  responses?: ResponseStore;
  logger: Logger;
  /**
   * Spreads the requests of aliases with `deployments` and cools failing ones down (through the
   * state store). Without it, deployments are tried in config order and never cooled down.
   */
  deployments?: DeploymentRouter;
  /** Retries of upstream calls (default: DEFAULT_RETRY_POLICY). */
  retryPolicy?: RetryPolicy;
  /** Removes configured secrets from text that leaves the gateway (error messages). */
  scrub?: (text: string) => string;
  /** Interval of SSE comment heartbeats while tools run. */
  heartbeatMs?: number;
  /** Per-key rpm/tpm limits over the state store's counters (in memory when not given). */
  limits?: KeyLimits;
  /** Where context compaction keeps where it cut each conversation (the state store's table). */
  compactions?: StateStore<CompactionState>;
  /** The MCP annotations of a gateway tool, for the tool policy. */
  toolHints?: (name: string) => ToolHints | undefined;
}
