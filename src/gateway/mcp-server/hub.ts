/**
 * The gateway as an MCP server: one hub shared by every connected client (the stdio client, or
 * each Streamable HTTP session), in front of the pool of upstream MCP servers.
 *
 * Downstream requests are forwarded to the server that owns the tool, resource or prompt, with
 * names mapped back exactly (see tools below, ./resources.ts and ./prompts.ts). Upstream messages
 * that are not responses (sampling, elicitation and roots requests; logging messages) are routed
 * to the client whose request caused them by ./client-relay.ts. `list_changed` and resource
 * updates go to every client (updates: to every client subscribed to that URI), 2026-07-28
 * clients included (on their subscriptions/listen streams: onBroadcast).
 *
 * Roots: only the stdio client's roots are relayed to upstream servers, and those of HTTP
 * sessions when `gateway.forwardRoots` is on (a server such as server-filesystem replaces its
 * allowed folders with them, for every user of the gateway).
 */
import { GATEWAY_CLIENT_CAPABILITIES } from "../../mcp/client/capabilities.ts";
import { CallToolResultSchema, CompleteResultSchema, ElicitResultSchema, ResultSchema } from "@modelcontextprotocol/core";
import {
  Server,
  type CallToolRequest,
  type CallToolResult,
  type ClientCapabilities,
  type CompleteRequest,
  type GetPromptRequest,
  type LoggingLevel,
  type Prompt,
  type ReadResourceRequest,
  type Resource,
  type ResourceTemplateType as ResourceTemplate,
  type ServerCapabilities,
  type ServerNotification,
  type Tool,
} from "@modelcontextprotocol/server";
import type { GatewayConfig, ServerConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { McpPool, UpstreamClient, UpstreamHandlers } from "../../mcp/pool.ts";
import type { ToolSet } from "../../core/index.ts";
import type { GatewayTools } from "../shared/deps.ts";
import type { KeyLimits } from "../shared/key-limits.ts";
import { keyTools, serverAllowed, serversRefusal, type KeyPolicy } from "../shared/keys.ts";
import type { DeploymentRouter } from "../routing/deployments.ts";
import type { ProviderEntry } from "../routing/providers.ts";
import type { Elicit, ElicitAnswer } from "./approval.ts";
import { CHAT_TOOL_NAME, chatToolDefinition, runChatTool, type ChatToolDeps } from "./chat-tool.ts";
import type { ModelDeps } from "./model-runner.ts";
import type { ConversationDeps } from "./chat-conversation.ts";
import { runSteerTool, STEER_TOOL_NAME, steerToolDefinition } from "./steer-tool.ts";
import { compileToolFilter } from "../../mcp/registry/tool-filter.ts";
import { ErrorCode, mcpError } from "./errors.ts";
import { namespaceOwner } from "./namespace.ts";
import { forwardRequest, ProgressRoutes } from "./forward.ts";
import { PromptRouter } from "./prompts.ts";
import { ResourceRouter } from "./resources.ts";
import { ClientRelay, clientCapabilities } from "./client-relay.ts";
import { UpstreamLogLevel } from "./log-levels.ts";
import { UpstreamSubscriptions } from "./subscriptions.ts";
import { registerSessionHandlers, type SessionHub } from "./session-server.ts";
import type { DownstreamSession, ModernInput, RequestExtra, Upstream } from "./types.ts";

export interface McpHubOptions {
  config: GatewayConfig;
  logger: Logger;
  providers: ReadonlyMap<string, ProviderEntry>;
  /** serverInfo.version of the gateway. */
  version?: string;
  /** How long the gateway waits for a client to answer a request an upstream server made (sampling, elicitation: a human may be involved). */
  clientRequestTimeoutMs?: number;
  /** Runs each `tools/call` a client sends (metrics and the trace: src/gateway/observe/mcp-door.ts). */
  observeToolCall?: ToolCallObserver;
}

/**
 * Runs a client's `tools/call` (`serve`), observing it: its tool name, its `_meta`, how it ended.
 * `serve(trace)` puts `trace` (the observer's trace context: traceparent, tracestate) in the
 * `_meta` forwarded upstream, so that the upstream server's spans are children of the gateway's.
 */
export type ToolCallObserver = <T extends { isError?: unknown }>(call: { name: string; meta: Record<string, unknown> | undefined }, serve: (trace?: Record<string, string>) => Promise<T>) => Promise<T>;

export interface SessionOptions {
  /** "stdio": the gateway's only client (unattributed messages and roots go to it). Default "http". */
  kind?: DownstreamSession["kind"];
  /** The policy of the gateway key that opened it: the session sees and may use only the key's servers and models. */
  key?: KeyPolicy | undefined;
}

export const GATEWAY_CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

export class McpHub implements SessionHub {
  private pool: McpPool | undefined;
  private readonly sessions = new Map<string, DownstreamSession>();
  /** Routes what upstream servers ask or log to the client whose request it is. */
  private readonly relay: ClientRelay;
  private requestSeq = 0;
  private activity = 0;
  readonly resources: ResourceRouter;
  readonly prompts: PromptRouter;
  private toolsFingerprint: string | undefined;
  private resourcesFingerprint: string | undefined;
  private promptsFingerprint: string | undefined;
  /** A number per upstream session: a restarted server has a new UpstreamClient (its lists may have changed). */
  private readonly sessionIds = new WeakMap<UpstreamClient, number>();
  private sessionIdSeq = 0;
  /** The upstream resource subscriptions the clients' subscriptions and listen streams need. */
  private readonly subscriptions: UpstreamSubscriptions;
  /** Told of every change notification for all clients (the 2026-07-28 listen streams). */
  private readonly broadcastListeners = new Set<(notification: ServerNotification) => void>();
  /** The level the upstream servers are asked to log at (the most verbose any client wants). */
  private readonly logLevel: UpstreamLogLevel;
  private closingSessions = false;
  private stopWatching: (() => void) | undefined;
  private stopWatchingReady: (() => void) | undefined;
  /** The MCP server side's logger (component mcp-server). */
  readonly logger: Logger;
  private readonly progress = new ProgressRoutes();
  private keyLimits: KeyLimits | undefined;
  private conversations: ConversationDeps | undefined;
  /** What the chat tool's and sampling's model calls need; the deployments' router is added by useDeployments. */
  private readonly models: ModelDeps;

  constructor(private readonly options: McpHubOptions) {
    this.logger = options.logger.child({ component: "mcp-server" });
    this.models = { config: options.config, providers: options.providers, logger: options.logger };
    this.relay = new ClientRelay({
      logger: this.logger,
      models: this.models,
      clientRequestTimeoutMs: options.clientRequestTimeoutMs ?? 10 * 60_000,
      sessions: this.sessions,
      notify: (session, notification, related) => this.notify(session, notification, related),
    });
    this.logLevel = new UpstreamLogLevel({ sessions: this.sessions, upstreams: () => this.upstreams(), progress: this.progress, logger: this.logger });
    this.resources = new ResourceRouter(() => this.upstreams(), this.logger);
    this.prompts = new PromptRouter(() => this.upstreams(), this.logger);
    this.subscriptions = new UpstreamSubscriptions({ sessions: this.sessions, resources: this.resources, upstream: (name) => this.upstream(name), progress: this.progress, logger: this.logger });
  }

  /** Attaches the pool (made with `upstreamHandlers` below). */
  bind(pool: McpPool): void {
    this.pool = pool;
    this.stopWatching = pool.onChange(() => this.onPoolChange());
    this.stopWatchingReady = pool.onReady((server) => void this.restoreUpstreamState(server));
  }

  /**
   * A server (re)connected: its new session knows nothing of what the gateway set up on the old
   * one. Re-applies, to that server only, the logging level last forwarded and the resource
   * subscriptions the connected clients hold on URIs it owns. (List changes a restart may bring
   * are announced by onPoolChange.)
   */
  private async restoreUpstreamState(name: string): Promise<void> {
    const upstream = this.upstream(name);
    if (!upstream) return;
    const requests: { method: string; params: Record<string, unknown> }[] = [];
    // Read and sent in one synchronous step: a setLevel or unsubscribe made after this point is
    // sent after these requests, on the same connection, so the server ends with the newest state.
    const level = this.logLevel.current;
    if (level !== undefined && upstream.capabilities.logging !== undefined && upstream.client.era === "legacy") requests.push({ method: "logging/setLevel", params: { level } });
    if (upstream.capabilities.resources?.subscribe) {
      for (const uri of this.subscriptions.urisOf(name)) requests.push({ method: "resources/subscribe", params: { uri } });
    }
    if (requests.length === 0) return;
    this.logger.info({ server: name, requests: requests.map((r) => r.method) }, "re-applying logging level and subscriptions to a (re)connected server");
    await Promise.all(
      requests.map((request) =>
        upstream.client.request(request, ResultSchema, { timeoutMs: upstream.timeoutMs }).catch((error: unknown) =>
          this.logger.warn({ server: name, method: request.method, params: request.params, err: String(error) }, "re-applying state to a (re)connected MCP server failed"),
        ),
      ),
    );
  }

  /* ------------------------------------------------------------------ upstream side */

  /**
   * For PoolOptions.upstreamHandlers: declares the client capabilities the gateway forwards
   * (sampling, elicitation, roots) and installs the handlers that route upstream requests and
   * notifications to the connected clients. Called for every new upstream session, before it connects.
   */
  readonly upstreamHandlers: UpstreamHandlers = (name, upstream) => {
    upstream.declareCapabilities(GATEWAY_CLIENT_CAPABILITIES);
    upstream.onRequest("sampling/createMessage", (request, signal) => this.relay.onSampling(name, request.params, signal) as never);
    upstream.onRequest("elicitation/create", (request, signal) => this.relay.onElicitation(name, request.params, signal) as never);
    upstream.onRequest("roots/list", (request, signal) => this.relay.onListRoots(name, request.params, signal) as never);
    upstream.onNotification("notifications/progress", (n) => this.progress.deliver(n.params));
    upstream.onNotification("notifications/message", (n) => this.relay.onLog(name, n.params));
    upstream.onNotification("notifications/resources/updated", (n) => this.onResourceUpdated(n.params.uri, n.params));
    upstream.onNotification("notifications/resources/list_changed", () => this.notifyAll({ method: "notifications/resources/list_changed" }));
    upstream.onNotification("notifications/prompts/list_changed", () => this.notifyAll({ method: "notifications/prompts/list_changed" }));
    upstream.onNotification("notifications/elicitation/complete", (n) => this.relay.onElicitationComplete(name, n.params));
  };

  /** Connected upstream servers, in config order. */
  upstreams(): Upstream[] {
    const pool = this.pool;
    if (!pool) return [];
    return pool.servers.flatMap((server) => {
      const upstream = this.upstreamOf(server);
      return upstream ? [upstream] : [];
    });
  }

  /** One server's, without building every other's (each forwarded `tools/call` asks). */
  private upstream(name: string): Upstream | undefined {
    const server = this.pool?.servers.find((s) => s.name === name);
    return server && this.upstreamOf(server);
  }

  private upstreamOf(server: ServerConfig): Upstream | undefined {
    const client = this.pool?.connection(server.name)?.upstream;
    return client ? { name: server.name, prefix: server.prefix, client, capabilities: client.capabilities, timeoutMs: server.timeoutMs, config: server } : undefined;
  }

  private onResourceUpdated(uri: string, params: Record<string, unknown>): void {
    const notification: ServerNotification = { method: "notifications/resources/updated", params: params as { uri: string } };
    for (const session of this.sessions.values()) {
      if (session.subscriptions.has(uri)) void this.notify(session, notification);
    }
    this.broadcast(notification);
  }

  /**
   * Listens to every change notification meant for all clients (list changes, resource updates):
   * the 2026-07-28 era delivers them on `subscriptions/listen` streams, which filter them.
   */
  onBroadcast(listener: (notification: ServerNotification) => void): () => void {
    this.broadcastListeners.add(listener);
    return () => this.broadcastListeners.delete(listener);
  }

  private broadcast(notification: ServerNotification): void {
    for (const listener of this.broadcastListeners) {
      try {
        listener(notification);
      } catch (error) {
        this.logger.warn({ method: notification.method, err: String(error) }, "a change notification listener failed");
      }
    }
  }

  /** Sends on the related request's stream when there is one, else on the session's own stream. */
  private async notify(session: DownstreamSession, notification: ServerNotification, related?: RequestExtra): Promise<void> {
    if (related) {
      try {
        await related.mcpReq.notify(notification);
        return;
      } catch {
        // The request was answered meanwhile: fall through to the session's stream.
      }
    }
    try {
      await session.server.notification(notification);
    } catch (error) {
      this.logger.debug({ session: session.id, method: notification.method, err: String(error) }, "notification not delivered");
    }
  }

  private notifyAll(notification: ServerNotification): void {
    for (const session of this.sessions.values()) if (session.initialized) void this.notify(session, notification);
    this.broadcast(notification);
  }

  /**
   * Tools, resources and prompts may have changed: tell the clients, once per change. Tools are
   * compared as listed. Resources and prompts are not listed here: their lists may have changed
   * when a server that has them connected, failed or restarted (a new session of a server may
   * serve other resources than the one before), so each connected session counts.
   */
  private onPoolChange(): void {
    const tools = JSON.stringify(this.listTools());
    if (this.toolsFingerprint !== undefined && tools !== this.toolsFingerprint) this.notifyAll({ method: "notifications/tools/list_changed" });
    this.toolsFingerprint = tools;
    const upstreams = this.upstreams();
    const sessionsWith = (capability: "resources" | "prompts") =>
      upstreams
        .filter((u) => u.capabilities[capability] !== undefined)
        .map((u) => `${u.name}\u0000${this.sessionId(u.client)}`)
        .join("\u0001");
    const resources = sessionsWith("resources");
    if (this.resourcesFingerprint !== undefined && resources !== this.resourcesFingerprint) this.notifyAll({ method: "notifications/resources/list_changed" });
    this.resourcesFingerprint = resources;
    const prompts = sessionsWith("prompts");
    if (this.promptsFingerprint !== undefined && prompts !== this.promptsFingerprint) this.notifyAll({ method: "notifications/prompts/list_changed" });
    this.promptsFingerprint = prompts;
  }

  private sessionId(client: UpstreamClient): number {
    let id = this.sessionIds.get(client);
    if (id === undefined) this.sessionIds.set(client, (id = ++this.sessionIdSeq));
    return id;
  }

  /* ------------------------------------------------------------------ sessions */

  /** A new client session with its own SDK Server; the caller connects it to a transport. */
  createSession(id: string, options: SessionOptions = {}): DownstreamSession {
    const server = this.newServer();
    const kind = options.kind ?? "http";
    const session: DownstreamSession = {
      id,
      server,
      kind,
      relayRoots: kind === "stdio" || this.options.config.gateway.forwardRoots,
      initialized: false,
      logLevel: undefined,
      lastActive: ++this.activity,
      subscriptions: new Set(),
      ...(options.key ? { key: options.key } : {}),
    };
    registerSessionHandlers(this, session);
    server.oninitialized = () => this.onInitialized(session);
    server.onclose = () => void this.removeSession(session);
    this.sessions.set(id, session);
    if (this.toolsFingerprint === undefined) this.onPoolChange();
    return session;
  }

  /**
   * A new SDK Server for one 2026-07-28 request (no handlers: the caller registers them), with
   * what the gateway says of itself in both eras.
   */
  newServer(): Server {
    return new Server(
      { name: "mcp-gateway", title: "MCP Gateway", version: this.options.version ?? "0.1.0" },
      { capabilities: GATEWAY_CAPABILITIES, ...this.instructions() },
    );
  }

  /**
   * The session of one 2026-07-28 request. `ask` set: the request may span several rounds (its
   * upstream servers may ask the client things), so it is registered until `removeSession`, and
   * what its upstream servers send back is routed to it.
   */
  requestSession(
    server: Server,
    options: {
      key?: KeyPolicy | undefined;
      logLevel?: LoggingLevel | undefined;
      capabilities?: ClientCapabilities | undefined;
      ask?: DownstreamSession["ask"];
      upstreamInput?: ModernInput | undefined;
    } = {},
  ): DownstreamSession {
    const session: DownstreamSession = {
      id: `modern-${++this.requestSeq}`,
      server,
      kind: "modern",
      relayRoots: this.options.config.gateway.forwardRoots,
      initialized: false,
      logLevel: options.logLevel,
      lastActive: ++this.activity,
      subscriptions: new Set(),
      ...(options.key ? { key: options.key } : {}),
      ...(options.ask ? { ask: options.ask } : {}),
      ...(options.upstreamInput ? { upstreamInput: options.upstreamInput } : {}),
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    };
    if (options.ask) this.sessions.set(session.id, session);
    if (this.toolsFingerprint === undefined) this.onPoolChange();
    return session;
  }

  /** The upstream servers' instructions, each under its server's name. */
  private instructions(): { instructions?: string } {
    const parts = this.upstreams().flatMap((u) => {
      const text = u.client.instructions;
      return text ? [{ name: u.name, text }] : [];
    });
    if (parts.length === 0) return {};
    if (parts.length === 1) return { instructions: parts[0]!.text };
    return { instructions: parts.map((p) => `## ${p.name}\n\n${p.text}`).join("\n\n") };
  }

  /** How long the gateway waits for a client's answer to what an upstream server asked it. */
  get clientRequestTimeoutMs(): number {
    return this.options.clientRequestTimeoutMs ?? 10 * 60_000;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Marks activity (diagnostics). */
  touch(session: DownstreamSession): void {
    session.lastActive = ++this.activity;
  }

  private onInitialized(session: DownstreamSession): void {
    session.initialized = true;
    this.touch(session);
    // Upstream servers that asked for roots before should ask again.
    if (clientCapabilities(session)?.roots) this.rootsChanged(session);
  }

  async removeSession(session: DownstreamSession): Promise<void> {
    if (this.sessions.get(session.id) !== session) return;
    this.sessions.delete(session.id);
    this.relay.forget(session);
    await Promise.all([...session.subscriptions].map((uri) => this.unsubscribe(session, uri).catch(() => undefined)));
    if (session.logLevel !== undefined) await this.relaxUpstreamLevel();
  }

  /**
   * A session re-created on this instance from its record (it started on another one, or on this
   * one before a restart): its log level and subscriptions take effect here, upstream too — the
   * upstream side re-established as the session arrives. A subscription whose server cannot be
   * reached now is kept (and logged): the session still holds it.
   */
  async restoreSession(session: DownstreamSession, state: { logLevel?: LoggingLevel | undefined; subscriptions: readonly string[] }): Promise<void> {
    if (state.logLevel !== undefined) {
      session.logLevel = state.logLevel;
      await this.logLevel.apply(undefined);
    }
    await Promise.all(
      state.subscriptions.map(async (uri) => {
        try {
          await this.subscriptions.ensure(uri, await this.resources.ownerOf(uri));
        } catch (error) {
          this.logger.warn({ session: session.id, uri, err: String(error) }, "could not renew a restored session's subscription upstream");
        }
        session.subscriptions.add(uri);
      }),
    );
  }

  /** Closes every client session (on shutdown). */
  async closeSessions(): Promise<void> {
    this.closingSessions = true;
    await Promise.all([...this.sessions.values()].map((s) => s.server.close().catch(() => undefined)));
    this.sessions.clear();
  }

  async close(): Promise<void> {
    this.stopWatching?.();
    this.stopWatchingReady?.();
    await this.closeSessions();
  }

  /** The upstream server a tool call goes to ("all" when the name is not listed). */
  private serversOfTool(name: string): ReadonlySet<string> | "all" {
    const server = this.pool?.registry.get(name)?.server;
    return server === undefined ? "all" : new Set([server]);
  }

  /** `tools` whose every call counts as a request of `session` (undefined: /v1) in flight to its server. */
  private trackedTools(tools: GatewayTools, session: DownstreamSession | undefined, extra: RequestExtra | undefined): GatewayTools {
    return {
      serverNames: () => tools.serverNames(),
      ...(tools.origin ? { origin: (name: string) => tools.origin!(name) } : {}),
      ...(tools.exposed ? { exposed: (server: string, tool: string) => tools.exposed!(server, tool) } : {}),
      select: (servers): ToolSet => {
        const selected = tools.select(servers);
        return {
          definitions: (target) => selected.definitions(target),
          has: (name) => selected.has(name),
          call: (call, context) => this.relay.track(session, extra, this.serversOfTool(call.name), () => selected.call(call, context)),
        };
      },
    };
  }

  /**
   * The tools for the /v1 routes: their calls count as in flight too, so that what an upstream
   * server asks or logs while serving one is never handed to an MCP session.
   */
  outsideTools(tools: GatewayTools): GatewayTools {
    return this.trackedTools(tools, undefined, undefined);
  }

  /* ------------------------------------------------------------------ downstream requests */

  private chatDeps(session?: DownstreamSession, extra?: RequestExtra): ChatToolDeps | undefined {
    const { config, providers } = this.options;
    const pool = this.pool;
    if (!pool || !config.gateway.chatTool || providers.size === 0) return undefined;
    // An upstream tool exposed as "chat" (prefix "") wins: the gateway's tool steps aside.
    if (pool.registry.has(CHAT_TOOL_NAME)) return undefined;
    // A key that may use no model has no use for it.
    const key = session?.key;
    if (key?.models?.length === 0) return undefined;
    // The loop's tool calls are this session's requests, each to its own server (only its key's).
    const tools = keyTools(session && extra ? this.trackedTools(pool, session, extra) : pool, key);
    return {
      ...this.models,
      tools,
      toolHints: (name: string) => pool.registry.get(name)?.tool.annotations,
      ...(key ? { key } : {}),
      ...(this.keyLimits ? { limits: this.keyLimits } : {}),
      ...(this.conversations ? { conversations: this.conversations } : {}),
      ...(session && extra ? this.elicitFor(session, extra) : {}),
    };
  }

  /** How the `chat` tool asks its client to approve a tool call: a form elicitation, when the client takes them. */
  private elicitFor(session: DownstreamSession, related: RequestExtra): { elicit?: Elicit } {
    const supported = clientCapabilities(session)?.elicitation as { form?: object; url?: object } | undefined;
    // A client that declared elicitation without modes takes forms (the 2025-06-18 shape).
    if (!supported || (supported.form === undefined && supported.url !== undefined)) return {};
    return { elicit: (params, signal) => this.relay.requestClient({ session, related }, { method: "elicitation/create", params }, ElicitResultSchema, signal) as Promise<ElicitAnswer> };
  }

  /** The doors' deployment router, for the `chat` tool's and sampling's model calls: an alias's deployments spread and cooled down alike. */
  useDeployments(router: DeploymentRouter): void {
    this.models.deployments = router;
  }

  /** Per-key rpm/tpm limits for the `chat` tool (the runtime's, over the state store). */
  useKeyLimits(limits: KeyLimits): void {
    this.keyLimits = limits;
  }

  /** Where the `chat` tool keeps conversations (the state store), and its runs for `steer`. */
  useConversations(conversations: ConversationDeps): void {
    this.conversations = conversations;
  }

  /** `steer` is offered with `chat` (conversations on), unless an upstream tool takes its name. */
  private steerable(chat: ChatToolDeps | undefined): ChatToolDeps | undefined {
    return chat?.conversations && !this.pool?.registry.has(STEER_TOOL_NAME) ? chat : undefined;
  }

  /** Every tool, or those of the session's key's servers. */
  listTools(session?: DownstreamSession): Tool[] {
    const key = session?.key;
    const entries = (this.pool?.registry.list() ?? []).filter((t) => serverAllowed(key, t.server));
    const tools: Tool[] = entries.map((t) => ({ ...t.tool, name: t.name }));
    const chat = this.chatDeps(session);
    if (chat) tools.push(chatToolDefinition(chat));
    if (this.steerable(chat)) tools.push(steerToolDefinition);
    return tools;
  }

  /** The upstream definition of the listed tool `name`, when it is one of the key's servers' (for checks before a call is served). */
  upstreamTool(name: string, key: KeyPolicy | undefined): Tool | undefined {
    const entry = this.pool?.registry.get(name);
    return entry && serverAllowed(key, entry.server) ? entry.tool : undefined;
  }

  /** Refuses what belongs to a server outside the session's key, naming the servers it may use. */
  private checkServer(session: DownstreamSession, server: string): void {
    const key = session.key;
    if (key && !serverAllowed(key, server)) throw mcpError(ErrorCode.InvalidParams, serversRefusal(key, [server]));
  }

  async callTool(session: DownstreamSession, request: CallToolRequest, extra: RequestExtra): Promise<CallToolResult> {
    const observe = this.options.observeToolCall;
    if (!observe) return this.serveTool(session, request, extra);
    return observe({ name: request.params.name, meta: request.params._meta }, (trace) =>
      this.serveTool(session, trace ? { ...request, params: { ...request.params, _meta: { ...request.params._meta, ...trace } } } : request, extra),
    );
  }

  private async serveTool(session: DownstreamSession, request: CallToolRequest, extra: RequestExtra): Promise<CallToolResult> {
    const name = request.params.name;
    const chat = name === CHAT_TOOL_NAME ? this.chatDeps(session, extra) : undefined;
    if (chat) return runChatTool(request.params.arguments, chat, extra, request.params);
    const steer = name === STEER_TOOL_NAME ? this.steerable(this.chatDeps(session)) : undefined;
    if (steer) return runSteerTool(request.params.arguments, { runs: steer.conversations!.runs, ...(steer.key ? { key: steer.key } : {}) });
    let entry = this.pool?.registry.get(name);
    // A tool of a server still starting (a client that knew it from before the gateway started):
    // its start is awaited (bounded by its start timeout) rather than the call refused.
    if ((!entry || !this.upstream(entry.server)) && (await this.awaitStarting(name, entry?.server))) entry = this.pool?.registry.get(name);
    let upstream: Upstream | undefined;
    let original: string;
    if (entry) {
      this.checkServer(session, entry.server);
      upstream = this.upstream(entry.server);
      if (!upstream) throw mcpError(ErrorCode.InternalError, `MCP server "${entry.server}" is not available`);
      original = entry.tool.name;
    } else {
      // Not listed: the server whose namespace it is in answers (unless its tool filter hides it).
      const owner = namespaceOwner(name, this.upstreams().filter((u) => u.capabilities.tools !== undefined));
      if (!owner) this.refuseUnavailable(name);
      if (!owner || !compileToolFilter(owner.upstream.config.tools)(owner.original)) throw mcpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
      this.checkServer(session, owner.upstream.name);
      upstream = owner.upstream;
      original = owner.original;
    }
    const params = { ...request.params, name: original };
    const target = upstream;
    return this.relay.track(session, extra, new Set([target.name]), () =>
      forwardRequest(target.client, "tools/call", params, CallToolResultSchema, { extra, timeoutMs: target.timeoutMs, progress: this.progress, modern: session.upstreamInput, logLevel: session.logLevel }),
    );
  }

  /**
   * Waits for the start in progress of the server of tool `name` (`server` when known, else the
   * server whose prefix it has); false when no such server is starting.
   */
  private async awaitStarting(name: string, server: string | undefined): Promise<boolean> {
    const pool = this.pool;
    if (!pool) return false;
    const owners = pool.servers.filter((s) => (server === undefined ? s.prefix !== "" && name.startsWith(s.prefix) : s.name === server));
    const starting = owners.map((s) => pool.connection(s.name)).filter((c) => c?.status.status === "starting");
    if (starting.length === 0) return false;
    await Promise.all(starting.map((c) => c!.settled()));
    return true;
  }

  /** A name in the namespace of a configured server that is down: say so, rather than "unknown". */
  private refuseUnavailable(name: string): void {
    const pool = this.pool;
    if (!pool) return;
    const down = pool.servers.filter((s) => s.prefix !== "" && name.startsWith(s.prefix) && !pool.connection(s.name)?.upstream);
    const server = down.sort((a, b) => b.prefix.length - a.prefix.length)[0];
    if (!server) return;
    const state = pool.connection(server.name)?.status;
    const why = state?.error ? `: ${state.error.split("\n")[0]}` : "";
    throw mcpError(ErrorCode.InternalError, `MCP server "${server.name}" is not available (${state?.status ?? "unknown"}${why})`);
  }

  /** Every server's resources, or those of the session's key's servers. */
  async listResources(session?: DownstreamSession): Promise<Resource[]> {
    const resources = await this.resources.list();
    const key = session?.key;
    return key?.mcpServers === undefined ? resources : resources.filter((r) => serverAllowed(key, this.resources.serverOf(r.uri) ?? ""));
  }

  async listResourceTemplates(session?: DownstreamSession): Promise<ResourceTemplate[]> {
    const templates = await this.resources.listTemplates();
    const key = session?.key;
    return key?.mcpServers === undefined ? templates : templates.filter((t) => serverAllowed(key, this.resources.serverOf(t.uriTemplate) ?? ""));
  }

  async readResource(session: DownstreamSession, request: ReadResourceRequest, extra: RequestExtra) {
    const upstream = await this.resources.ownerOf(request.params.uri);
    this.checkServer(session, upstream.name);
    return this.relay.track(session, extra, new Set([upstream.name]), () =>
      forwardRequest(upstream.client, "resources/read", request.params, ResultSchema, { extra, timeoutMs: upstream.timeoutMs, progress: this.progress, modern: session.upstreamInput, logLevel: session.logLevel }),
    );
  }

  async subscribe(session: DownstreamSession, uri: string, extra: RequestExtra): Promise<void> {
    const upstream = await this.resources.ownerOf(uri);
    this.checkServer(session, upstream.name);
    await this.subscriptions.ensure(uri, upstream, extra);
    session.subscriptions.add(uri);
  }

  async unsubscribe(session: DownstreamSession, uri: string, extra?: RequestExtra): Promise<void> {
    session.subscriptions.delete(uri);
    await this.subscriptions.release(uri, extra);
  }

  /** Resource updates for a 2026-07-28 listen stream (see UpstreamSubscriptions.hold). */
  holdResources(uris: readonly string[], key: KeyPolicy | undefined): Promise<() => void> {
    return this.subscriptions.hold(uris, key);
  }

  /** Every server's prompts, or those of the session's key's servers. */
  async listPrompts(session?: DownstreamSession): Promise<Prompt[]> {
    const prompts = await this.prompts.list();
    const key = session?.key;
    return key?.mcpServers === undefined ? prompts : prompts.filter((p) => serverAllowed(key, this.prompts.serverOf(p.name) ?? ""));
  }

  async getPrompt(session: DownstreamSession, request: GetPromptRequest, extra: RequestExtra) {
    const { upstream, ref } = await this.prompts.resolve(request.params.name);
    this.checkServer(session, upstream.name);
    return this.relay.track(session, extra, new Set([upstream.name]), () =>
      forwardRequest(upstream.client, "prompts/get", { ...request.params, name: ref.tool }, ResultSchema, { extra, timeoutMs: upstream.timeoutMs, progress: this.progress, modern: session.upstreamInput, logLevel: session.logLevel }),
    );
  }

  async complete(session: DownstreamSession, request: CompleteRequest, extra: RequestExtra) {
    const ref = request.params.ref;
    let upstream: Upstream;
    let params: Record<string, unknown> = request.params;
    if (ref.type === "ref/prompt") {
      const resolved = await this.prompts.resolve(ref.name);
      upstream = resolved.upstream;
      params = { ...request.params, ref: { ...ref, name: resolved.ref.tool } };
    } else {
      upstream = await this.resources.ownerOfTemplate(ref.uri);
    }
    this.checkServer(session, upstream.name);
    return this.relay.track(session, extra, new Set([upstream.name]), () =>
      forwardRequest(upstream.client, "completion/complete", params, CompleteResultSchema, { extra, timeoutMs: upstream.timeoutMs, progress: this.progress, logLevel: session.logLevel }),
    );
  }

  /**
   * Records the client's level. The upstream servers that log get the most verbose level any
   * connected client wants (and each one that restarts later gets it again): one client asking
   * for "error" must not silence the "debug" another asked for. Each client still receives only
   * its own level and above.
   */
  async setLevel(session: DownstreamSession, level: LoggingLevel, extra: RequestExtra): Promise<void> {
    session.logLevel = level;
    await this.logLevel.apply(extra);
  }

  /** After a client left: the upstream servers need only what the remaining clients want. */
  private async relaxUpstreamLevel(): Promise<void> {
    if (this.closingSessions) return; // shutting down: the servers close next
    await this.logLevel.apply(undefined);
  }

  /**
   * A client's roots changed (or a client with roots connected): upstream servers ask again. Only
   * for clients whose roots are relayed (stdio; HTTP with gateway.forwardRoots).
   */
  rootsChanged(session: DownstreamSession): void {
    if (!session.relayRoots) return;
    for (const u of this.upstreams()) {
      u.client.notify({ method: "notifications/roots/list_changed" }).catch((error: unknown) => this.logger.debug({ server: u.name, err: String(error) }, "roots/list_changed not delivered"));
    }
  }
}
