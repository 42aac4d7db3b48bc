/**
 * The running gateway: config, MCP pool, provider adapters, state stores and the HTTP app,
 * wired once at start-up. Front doors (HTTP, stdio) are built on top of it.
 */
import type { Hono } from "hono";
import { ConfigError, type GatewayConfig } from "../core/config/index.ts";
import { createLogger, scrubber, type Logger } from "../core/logger.ts";
import type { SchemaTarget } from "../core/index.ts";
import { McpPool } from "../mcp/pool.ts";
import { createApp, type HealthReport } from "./http/app.ts";
import { McpHttpEndpoint } from "./mcp-server/http.ts";
import { McpHub } from "./mcp-server/hub.ts";
import { buildProviders, type AdapterFactory, type ProviderEntry } from "./routing/providers.ts";
import { HiddenStepsKeeper, type HiddenSteps } from "./state/hidden-steps.ts";
import { ResponseStore, type StoredResponse } from "./state/responses.ts";
import { MemoryStore } from "./state/store.ts";

export interface GatewayOptions {
  logger?: Logger;
  adapterFactory?: AdapterFactory;
  /** SSE heartbeat interval while tools run. */
  heartbeatMs?: number;
}

export interface Gateway {
  config: GatewayConfig;
  logger: Logger;
  pool: McpPool;
  providers: Map<string, ProviderEntry>;
  hiddenSteps: HiddenStepsKeeper;
  app: Hono;
  /** The gateway as an MCP server (stdio and every /mcp session share it). */
  mcp: McpHub;
  /** The /mcp Streamable HTTP endpoint mounted on `app`. */
  mcpHttp: McpHttpEndpoint;
  health(): HealthReport;
  close(): Promise<void>;
}

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

function health(pool: McpPool, providers: Map<string, ProviderEntry>, scrub: (text: string) => string): HealthReport {
  // stderr tails can hold tokens the servers printed: scrubbed like the logs.
  const servers = pool.states().map((s) => ({ ...s, ...(s.error === undefined ? {} : { error: scrub(s.error) }) }));
  const providerStates = [...providers.values()].map((p) => ({
    name: p.name,
    type: p.type,
    status: p.unavailable ? "unavailable" : "configured",
    ...(p.unavailable ? { error: p.unavailable } : {}),
  }));
  const degraded = servers.some((s) => s.status === "failed" || s.status === "unavailable");
  return { status: degraded ? "degraded" : "ok", servers, providers: providerStates };
}

function logSchemaWarnings(pool: McpPool, providers: Map<string, ProviderEntry>, logger: Logger): void {
  const targets = new Set<SchemaTarget>([...providers.values()].map((p) => p.schemaTarget));
  for (const target of targets) {
    for (const { tool, warning } of pool.registry.normalized(target).warnings) logger.info({ target, tool, warning }, "tool schema adjusted for provider");
  }
}

export async function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger({ secrets: configSecrets(config) });
  const providers = buildProviders(config.providers, options.adapterFactory, config.path ?? "(inline)");
  const mcp = new McpHub({ config, logger, providers });
  const pool = new McpPool(config.servers, { logger, upstreamHandlers: mcp.upstreamHandlers });
  mcp.bind(pool);
  await pool.start();
  const collisions = pool.emptyPrefixCollisions();
  if (collisions.length > 0) {
    await pool.close();
    throw new ConfigError(config.path ?? "(inline)", collisions.map((c) => ({
      path: `mcpServers.${c.tools.find((t) => t)?.server ?? ""}.prefix`,
      message: `prefix "" makes tool names collide: ${c.tools.map((t) => `${t.server}/${t.tool}`).join(", ")} all want "${c.name}"`,
    })));
  }
  for (const provider of providers.values()) {
    if (provider.unavailable) logger.warn({ provider: provider.name }, provider.unavailable);
  }
  const upstreamChat = pool.registry.get("chat");
  if (upstreamChat && config.gateway.chatTool && providers.size > 0) {
    logger.warn({ server: upstreamChat.server }, `the gateway's own "chat" tool is hidden by server "${upstreamChat.server}"'s tool "chat" (prefix ""); give that server a prefix, or set gateway.chatTool to false to silence this`);
  }
  for (const server of config.servers) {
    if (!server.disabled && server.missingVariables.length > 0) {
      logger.warn({ server: server.name, unset: server.missingVariables }, `MCP server "${server.name}" not started: set ${server.missingVariables.join(", ")}`);
    }
  }
  logSchemaWarnings(pool, providers, logger);
  const hiddenSteps = new HiddenStepsKeeper(new MemoryStore<HiddenSteps>(), logger);
  const scrub = scrubber(configSecrets(config));
  const report = () => health(pool, providers, scrub);
  const mcpHttp = new McpHttpEndpoint({ hub: mcp, config, logger });
  const app = createApp({
    mount: (routes) => mcpHttp.mount(routes),
    config,
    providers,
    // /v1 tool calls are tracked by the MCP hub, so upstream requests they cause never reach an MCP session.
    tools: mcp.outsideTools(pool),
    hiddenSteps,
    responses: new ResponseStore(new MemoryStore<StoredResponse>()),
    logger,
    health: report,
    retryPolicy: config.gateway.retries,
    scrub,
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
  });
  const close = async () => {
    await mcpHttp.close();
    await mcp.close();
    await pool.close();
  };
  return { config, logger, pool, providers, hiddenSteps, app, mcp, mcpHttp, health: report, close };
}
