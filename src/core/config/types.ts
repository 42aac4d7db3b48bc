import type { GatewaySettings, ModelAliasConfig, ProviderConfig } from "./schema.ts";
import type { MissingVariable } from "./interpolate.ts";
import type { ContextConfig, ToolPolicyConfig, ToolSearchConfig } from "./loop-schema.ts";

export interface ToolFilter {
  allow?: string[] | undefined;
  deny?: string[] | undefined;
}

interface ServerCommon {
  name: string;
  disabled: boolean;
  /**
   * `${VAR}`s in this server's fields that are not set: it is not started (an unset token
   * would go out as "Bearer "), and is reported unavailable, naming them.
   */
  missingVariables: string[];
  /** Per-call timeout for this server's tools. */
  timeoutMs: number;
  /** How long its start (spawn or connect, initialize, tools/list) may take before it counts as failed. */
  startTimeoutMs: number;
  /** Whether a second, short session learns which tools models may be offered (see model-tools-probe.ts). */
  probeModelTools: boolean;
  /** Namespace of this server's tools: `<name>__` unless configured. */
  prefix: string;
  tools: ToolFilter;
  /** Its tool results larger than this many tokens are cut for the model. */
  maxResultTokens: number;
  /** The MCP protocol era spoken to it ("auto": probed with server/discover, falling back to initialize). */
  era: "auto" | "2025-11-25" | "2026-07-28";
}

export interface StdioServerConfig extends ServerCommon {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
}

export interface RemoteServerConfig extends ServerCommon {
  /** `http` is Streamable HTTP (falls back to SSE for older servers); `sse` is the legacy transport. */
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

export type ServerConfig = StdioServerConfig | RemoteServerConfig;

export interface ResolvedProviderConfig extends ProviderConfig {
  name: string;
  /** Environment variables the provider's settings referenced but that are unset. */
  missingVariables: string[];
}

/** One gateway key and what comes with it (a plain string key has no limits). */
export interface KeyPolicy {
  key: string;
  /** Its configured name, else "key #<n>" (its place in gateway.apiKeys): for logs and refusals. */
  name: string;
  /** Requests per minute. */
  rpm?: number | undefined;
  /** Tokens (input + output, as reported by the providers) per minute. */
  tpm?: number | undefined;
  /** Patterns (`*` a wildcard) of the model names it may ask for; undefined: every model. */
  models?: readonly string[] | undefined;
  /** The MCP servers it may use; undefined: every server. */
  mcpServers?: readonly string[] | undefined;
  /** Calls the tool policy says need approval run without asking. */
  autoApprove?: boolean | undefined;
}

export interface ResolvedGatewaySettings {
  host: string;
  port: number;
  /** Every gateway key (plain or from an entry with limits). */
  apiKeys: string[];
  /** The same keys with their names, limits and permissions. */
  keyPolicies: KeyPolicy[];
  maxIterations: number;
  toolTimeoutMs: number;
  /** Default start timeout of the MCP servers. */
  serverStartTimeoutMs: number;
  chatTool: boolean;
  retries: { attempts: number; initialDelayMs: number; maxDelayMs: number; budgetMs: number };
  maxBodyBytes: number;
  maxConcurrentRequests: number;
  maxMessages: number;
  maxJsonDepth: number;
  maxArrayLength: number;
  requestTimeoutMs: number;
  sampling?: { model: string } | undefined;
  /** Host header values /mcp accepts besides loopback (DNS-rebinding protection). */
  allowedHosts: string[];
  /** Origin header values /mcp accepts besides loopback origins. */
  allowedOrigins: string[];
  /** Relay the roots of /mcp HTTP sessions to upstream servers (off: only the stdio client's roots are). */
  forwardRoots: boolean;
  /** Open /mcp sessions at most. */
  maxMcpSessions: number;
  /** Origins whose browser pages may call /v1 (CORS; `*` for any); empty: none. */
  corsOrigins: string[];
  /** Metrics, the web view and trace content (the defaults when not given: metrics and the view on, 200 recent requests, no content). */
  observability?: { metrics: boolean; ui: boolean; recentRequests: number; captureContent: boolean } | undefined;
  /** Where state between requests lives. */
  store: { kind: "memory" } | { kind: "redis"; url: string; keyPrefix?: string };
  /** Defaults of the loop options (an alias's own win). */
  context?: ContextConfig | undefined;
  toolSearch?: ToolSearchConfig | undefined;
  toolPolicy?: ToolPolicyConfig | undefined;
  finalAnswer: boolean;
  /** Tool results larger than this many tokens are cut (a server's own setting wins). */
  maxResultTokens: number;
}

export interface GatewayConfig {
  /** Where it was loaded from, if from a file. */
  path?: string | undefined;
  servers: ServerConfig[];
  providers: Record<string, ResolvedProviderConfig>;
  models: Record<string, ModelAliasConfig>;
  gateway: ResolvedGatewaySettings;
  missingVariables: MissingVariable[];
  /** Values the config took from the environment (`${VAR}`): redacted wherever they would show. */
  environmentValues: string[];
}

export type { GatewaySettings, ModelAliasConfig, ProviderConfig };
export type { CapabilitiesConfig, ContextConfig, ToolPolicyConfig, ToolSearchConfig } from "./loop-schema.ts";

export const DEFAULTS = {
  host: "127.0.0.1",
  port: 4000,
  maxIterations: 10,
  toolTimeoutMs: 60_000,
  serverStartTimeoutMs: 30_000,
  retries: { attempts: 3, initialDelayMs: 250, maxDelayMs: 4_000, budgetMs: 30_000 },
  maxBodyBytes: 10 * 1024 * 1024,
  maxConcurrentRequests: 512,
  maxMessages: 2_000,
  maxJsonDepth: 64,
  maxArrayLength: 10_000,
  requestTimeoutMs: 600_000,
  maxMcpSessions: 256,
  maxResultTokens: 25_000,
} as const;
