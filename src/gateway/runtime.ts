/**
 * The running gateway: config, MCP pool, provider adapters, state stores and the HTTP app,
 * wired once at start-up. Front doors (HTTP, stdio) are built on top of it. The MCP servers
 * connect in the background: the gateway can listen at once, each server's tools are offered
 * from the moment it is ready, and `started` says when every first start has ended.
 */
import { createRequire } from "node:module";
import type { Hono } from "hono";
import type { GatewayConfig } from "../core/config/index.ts";
import { createLogger, scrubber, type Logger } from "../core/logger.ts";
import type { SchemaTarget } from "../core/index.ts";
import { McpPool } from "../mcp/pool.ts";
import { modelSurfaceCapabilities } from "../mcp/client/capabilities.ts";
import type { CompactionState } from "../loop/index.ts";
import { createApp, type HealthReport, type ReadyReport } from "./http/app.ts";
import { McpHttpEndpoint } from "./mcp-server/http.ts";
import { McpHub } from "./mcp-server/hub.ts";
import { ConversationRuns } from "./mcp-server/conversation-runs.ts";
import { ConversationStore, CONVERSATIONS_TABLE, type StoredConversation } from "./state/conversations.ts";
import { DeploymentRouter } from "./routing/deployments.ts";
import { buildProviders, type AdapterFactory, type ProviderEntry } from "./routing/providers.ts";
import { KeyLimits } from "./shared/key-limits.ts";
import { HiddenStepsKeeper, type HiddenSteps } from "./state/hidden-steps.ts";
import { ResponseStore, type StoredResponse } from "./state/responses.ts";
import { MemoryBackend, type StateBackend } from "./state/store.ts";
import { DEFAULT_OBSERVABILITY, Observability } from "./observe/observability.ts";
import { startTracing, type Tracing } from "./observe/otel-sdk.ts";
import { mcpDoorObserver } from "./observe/mcp-door.ts";
import { serverViews } from "./observe/servers-view.ts";
import { providerOrigins, startWireLog } from "./observe/wire-log.ts";

export interface GatewayOptions {
  logger?: Logger;
  adapterFactory?: AdapterFactory;
  /** SSE heartbeat interval while tools run. */
  heartbeatMs?: number;
  /** Where the OTEL_* variables are read (default process.env): traces start when they ask for them. */
  env?: Record<string, string | undefined>;
  /**
   * Whether the gateway's HTTP endpoints will be served (default true). `mcp-gateway stdio` has
   * none: nothing could read `/metrics` or the web view, so neither is kept — no per-request
   * records, and no process metrics, whose event-loop monitor wakes the process every 10 ms (a
   * desktop client's gateway runs all day, mostly idle).
   */
  http?: boolean;
}

export interface Gateway {
  config: GatewayConfig;
  logger: Logger;
  pool: McpPool;
  providers: Map<string, ProviderEntry>;
  hiddenSteps: HiddenStepsKeeper;
  /** Where state between requests lives (memory, or Redis shared by every instance). */
  store: StateBackend;
  app: Hono;
  /** Metrics, recent requests (the web view) and traces. */
  observability: Observability;
  /** The gateway as an MCP server (stdio and every /mcp session share it). */
  mcp: McpHub;
  /** The /mcp Streamable HTTP endpoint mounted on `app`. */
  mcpHttp: McpHttpEndpoint;
  health(): HealthReport;
  ready(): ReadyReport;
  /**
   * Resolves when every enabled MCP server has finished its first start, ready or failed (each
   * within its start timeout). Never rejects. Nothing needs to wait for it: tools join as their
   * servers become ready. The CLI's stdio mode and tests do.
   */
  started: Promise<void>;
  close(): Promise<void>;
}

/** The package's version (the traces' service.version). */
const GATEWAY_VERSION = (() => {
  try {
    return (createRequire(import.meta.url)("../../package.json") as { version: string }).version;
  } catch {
    return "0.0.0";
  }
})();

/** Every secret value in the config, so the logger can scrub it wherever it appears. */
export function configSecrets(config: GatewayConfig): string[] {
  // Every value taken from the environment counts (keys, tokens in urls, args or headers).
  const secrets = [...config.gateway.apiKeys, ...config.environmentValues.filter((v) => v.length >= 8)];
  for (const provider of Object.values(config.providers)) {
    if (provider.apiKey) secrets.push(provider.apiKey);
    secrets.push(...Object.values(provider.headers ?? {}).filter((v) => v.length >= 8));
  }
  for (const server of config.servers) {
    const values = server.transport === "stdio" ? Object.values(server.env) : Object.values(server.headers);
    secrets.push(...values.filter((v) => v.length >= 8));
  }
  return secrets;
}

function firstLine(text: string): string {
  return text.split("\n")[0]!;
}

/** The hidden steps of a conversation: kept an hour (a conversation's follow-up comes sooner), an entry up to 8 MB. */
const STEPS_TABLE = { ttlMs: 60 * 60 * 1000, maxEntryBytes: 8 * 1024 * 1024 };
/** Stored Responses API responses: an hour too, as bounded. */
const RESPONSES_TABLE = { ttlMs: 60 * 60 * 1000, maxEntryBytes: 8 * 1024 * 1024 };
/** Where context compaction cut each conversation (and its summary): a day, small entries. */
const COMPACTIONS_TABLE = { ttlMs: 24 * 60 * 60 * 1000, maxEntryBytes: 256 * 1024 };

/** The configured store. The Redis client is loaded only when configured (ioredis adds about 15 MB to every process). */
async function createStateBackend(config: GatewayConfig, logger: Logger): Promise<StateBackend> {
  const store = config.gateway.store;
  if (store.kind !== "redis") return new MemoryBackend();
  const { RedisBackend } = await import("./state/redis-store.ts");
  return new RedisBackend({ url: store.url, ...(store.keyPrefix === undefined ? {} : { keyPrefix: store.keyPrefix }) }, logger);
}

function health(pool: McpPool, providers: Map<string, ProviderEntry>, scrub: (text: string) => string, store: StateBackend): HealthReport {
  // stderr tails can hold tokens the servers printed: scrubbed like the logs.
  const servers = pool.states().map((s) => ({ ...s, ...(s.error === undefined ? {} : { error: scrub(s.error) }) }));
  const providerStates = [...providers.values()].map((p) => ({
    name: p.name,
    type: p.type,
    status: p.unavailable ? "unavailable" : "configured",
    ...(p.unavailable ? { error: p.unavailable } : {}),
  }));
  const reasons: string[] = [];
  for (const s of servers) {
    if (s.status === "failed" || s.status === "unavailable") reasons.push(`MCP server "${s.name}" ${s.status}: ${firstLine(s.error ?? "")}`);
  }
  for (const collision of pool.emptyPrefixCollisions()) {
    reasons.push(`prefix "" makes tool names collide: ${collision.tools.map((t) => `${t.server}/${t.tool}`).join(", ")} all want "${collision.name}"`);
  }
  if (providerStates.length === 0) reasons.push("no provider configured: /v1 requests cannot be answered (add one under providers)");
  else if (providerStates.every((p) => p.status === "unavailable")) {
    reasons.push(`no provider is usable: ${providerStates.map((p) => `${p.name} (${p.error})`).join("; ")}`);
  }
  const storeHealth = store.health();
  if (storeHealth.status === "down") reasons.push(`the state store (${storeHealth.kind}) is unavailable: ${scrub(storeHealth.error ?? "")}; requests that need stored state fail with 503`);
  return { status: reasons.length > 0 ? "degraded" : "ok", reasons, servers, providers: providerStates, store: storeHealth.error ? { ...storeHealth, error: scrub(storeHealth.error) } : storeHealth };
}

function ready(pool: McpPool): ReadyReport {
  const starting = pool.startingServers();
  return { status: starting.length > 0 ? "starting" : "ready", starting };
}

/**
 * Logs what provider schema normalization changed in the tools, each once (the registry is
 * rebuilt whenever a server becomes ready or restarts).
 */
function schemaWarningLogger(providers: Map<string, ProviderEntry>, logger: Logger): (pool: McpPool) => void {
  const targets = new Set<SchemaTarget>([...providers.values()].map((p) => p.schemaTarget));
  const logged = new Set<string>();
  return (pool) => {
    for (const target of targets) {
      for (const { tool, warning } of pool.registry.normalized(target).warnings) {
        const key = `${target}\u0000${tool}\u0000${warning}`;
        if (logged.has(key)) continue;
        logged.add(key);
        logger.info({ target, tool, warning }, "tool schema adjusted for provider");
      }
    }
  };
}

export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger({ secrets: configSecrets(config) });
  const env = options.env ?? process.env;
  // Traces only when the OTEL_* variables ask for them (the SDK is not even loaded otherwise).
  const tracing: Tracing | undefined = await startTracing(env, logger, GATEWAY_VERSION);
  const providers = buildProviders(config.providers, options.adapterFactory, config.path ?? "(inline)");
  // At trace level, every provider request and answer goes to the log (the transparent log).
  const stopWireLog = logger.isLevelEnabled("trace") ? startWireLog(logger, providerOrigins(providers.values())) : undefined;
  const scrub = scrubber(configSecrets(config));
  let poolRef: McpPool | undefined;
  const configured = config.gateway.observability ?? DEFAULT_OBSERVABILITY;
  const settings = options.http === false ? { ...configured, metrics: false, ui: false } : configured;
  const captureContent = settings.captureContent || /^true$/i.test(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? "");
  const observability = new Observability({
    settings: { ...settings, captureContent },
    logger,
    scrub,
    origin: (name) => poolRef?.origin(name),
    sources: { servers: () => poolRef?.states() ?? [], store: () => store.health() },
    servers: () => (poolRef ? serverViews(poolRef, providers, scrub) : []),
  });
  const mcp = new McpHub({ config, logger, providers, observeToolCall: mcpDoorObserver(observability.metrics) });
  // modelCapabilities: each server is also asked which tools it lists without an MCP client's
  // capabilities, and the model doors offer only those (a tool that elicits could never work there).
  const pool = new McpPool(config.servers, {
    logger,
    upstreamHandlers: mcp.upstreamHandlers,
    onCall: (report) => observability.mcpCall(report),
    modelCapabilities: modelSurfaceCapabilities(config.gateway.sampling?.model),
  });
  poolRef = pool;
  mcp.bind(pool);
  for (const provider of providers.values()) {
    if (provider.unavailable) logger.warn({ provider: provider.name }, provider.unavailable);
  }
  for (const server of config.servers) {
    if (!server.disabled && server.missingVariables.length > 0) {
      logger.warn({ server: server.name, unset: server.missingVariables }, `MCP server "${server.name}" not started: set ${server.missingVariables.join(", ")}`);
    }
  }
  // What used to be checked once after every server had started, now as servers become ready.
  // (A prefix "" collision can only be seen once both servers are up: it is logged by the pool
  // and reported by /health and `check`.)
  const logSchemaWarnings = schemaWarningLogger(providers, logger);
  let chatHiddenWarned = false;
  pool.onChange(() => {
    const upstreamChat = pool.registry.get("chat");
    if (upstreamChat && !chatHiddenWarned && config.gateway.chatTool && providers.size > 0) {
      chatHiddenWarned = true;
      logger.warn({ server: upstreamChat.server }, `the gateway's own "chat" tool is hidden by server "${upstreamChat.server}"'s tool "chat" (prefix ""); give that server a prefix, or set gateway.chatTool to false to silence this`);
    }
    logSchemaWarnings(pool);
  });
  const store = await createStateBackend(config, logger);
  // What the gateway's parts use: the store with its failures counted (metrics).
  const counted = observability.countStoreErrors(store);
  const hiddenSteps = new HiddenStepsKeeper(counted.table<HiddenSteps>("steps", STEPS_TABLE), logger);
  const report = () => health(pool, providers, scrub, store);
  // With a shared store, /mcp sessions keep their records in it and move between instances.
  const mcpHttp = new McpHttpEndpoint({ hub: mcp, config, logger, store: counted });
  const keyLimits = new KeyLimits(counted.counters, logger);
  mcp.useKeyLimits(keyLimits);
  // Cooldowns of aliases' deployments go through the store: every instance skips a failing one.
  // One router for the doors and the MCP surface (the chat tool, sampling): one spread per alias.
  const deployments = new DeploymentRouter({ store: counted, logger });
  mcp.useDeployments(deployments);
  // The chat tool's conversations, in the store (every instance continues them); its runs, here.
  mcp.useConversations({ store: new ConversationStore(store.table<StoredConversation>("conversations", CONVERSATIONS_TABLE)), runs: new ConversationRuns() });
  const app = createApp({
    mount: (routes) => mcpHttp.mount(routes),
    config,
    providers,
    // /v1 tool calls are tracked by the MCP hub, so upstream requests they cause never reach an MCP session.
    tools: mcp.outsideTools(pool.forModels()),
    hiddenSteps,
    responses: new ResponseStore(counted.table<StoredResponse>("responses", RESPONSES_TABLE)),
    deployments,
    // Per-key rpm/tpm counters in the store: shared by every instance.
    limits: keyLimits,
    // Where compaction cut each conversation, and the tools' MCP annotations for the tool policy.
    compactions: store.table<CompactionState>("compactions", COMPACTIONS_TABLE),
    toolHints: (name) => pool.registry.get(name)?.tool.annotations,
    logger,
    health: report,
    ready: () => ready(pool),
    retryPolicy: config.gateway.retries,
    scrub,
    observability,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  // In the background: nothing above waits for a server.
  const started = pool.start().then(() => {
    const states = pool.states().filter((s) => s.status !== "disabled" && s.status !== "closed");
    if (states.length === 0) return;
    const failed = states.filter((s) => s.status !== "ready").map((s) => s.name);
    logger.info({ ready: states.length - failed.length, failed, tools: pool.registry.list().length }, "MCP servers started");
  });
  const close = async () => {
    observability.endStreams();
    await mcpHttp.close();
    await mcp.close();
    await pool.close();
    await store.close();
    await tracing?.shutdown();
    stopWireLog?.();
  };
  return { config, logger, pool, providers, hiddenSteps, store, app, observability, mcp, mcpHttp, health: report, ready: () => ready(pool), started, close };
}
