/**
 * The MCP servers of mcp.config.json: connected in parallel, each on its own (a failing or
 * hanging server never blocks the others, and nobody has to wait for the start to finish: a
 * server's tools are offered from the moment it is ready), and the registry of their tools
 * rebuilt whenever a server's tools change (connect, reconnect, list_changed, crash).
 */
import type { ServerConfig } from "../core/config/index.ts";
import type { Logger } from "../core/logger.ts";
import type { ToolSet } from "../core/index.ts";
import type { Backoff } from "./client/backoff.ts";
import { McpConnection, type ConnectionOptions, type ReadyInfo, type ServerState } from "./client/connection.ts";
import { buildToolNameMap, emptyPrefixCollisions, type ToolNameCollision } from "./names.ts";
import { compileToolFilter } from "./registry/tool-filter.ts";
import { ToolRegistry, type RegisteredTool, type ToolCaller } from "./registry/registry.ts";

export type { ReadyInfo, ServerState };
export type { SchemaOutput, UpstreamClient, UpstreamHandlerRegistry, UpstreamHandlers, UpstreamMessage } from "./client/upstream.ts";

/** Told after every successful (re)connect of a server; see McpPool.onReady. */
export type ReadyListener = (server: string, info: ReadyInfo) => void;
/** Told whenever a server's status changed; see McpPool.onStatus. */
export type StatusListener = (state: ServerState) => void;

export interface PoolOptions extends Omit<ConnectionOptions, "onToolsChanged" | "backoff" | "onStatus"> {
  logger: Logger;
  /**
   * Makes each server's retry backoff. A factory, not an instance: one Backoff shared by every
   * connection let one failing server lengthen (or reset) the retry delays of the others.
   */
  backoff?: () => Backoff;
}

export class McpPool {
  private readonly connections = new Map<string, McpConnection>();
  private current: ToolRegistry;
  private version = 0;
  private nameCollisions: ToolNameCollision[] = [];
  private readonly listeners = new Set<(registry: ToolRegistry) => void>();
  private readonly readyListeners = new Set<ReadyListener>();
  private readonly statusListeners = new Set<StatusListener>();
  private started: Promise<void> | undefined;
  private readonly caller: ToolCaller;
  private readonly taskToolsReported = new Set<string>();

  constructor(
    readonly servers: readonly ServerConfig[],
    private readonly options: PoolOptions,
  ) {
    const { backoff, onReady, ...connectionOptions } = options;
    if (onReady) this.readyListeners.add(onReady);
    for (const server of servers) {
      this.connections.set(
        server.name,
        new McpConnection(server, {
          ...connectionOptions,
          ...(backoff ? { backoff: backoff() } : {}),
          onToolsChanged: () => this.rebuild(),
          onReady: (name, info) => this.announceReady(name, info),
          onStatus: (state) => this.announceStatus(state),
        }),
      );
    }
    this.caller = (server, tool, args, context) => {
      const connection = this.connections.get(server);
      if (!connection) throw new Error(`unknown MCP server "${server}"`);
      return connection.callTool(tool, args, {
        ...(context.signal ? { signal: context.signal } : {}),
        ...(context.onProgress ? { onProgress: context.onProgress } : {}),
        ...(context.trace ? { trace: context.trace } : {}),
      });
    };
    this.current = new ToolRegistry(0, [], this.caller);
  }

  /**
   * Starts every enabled server, each in the background; resolves when each has connected or
   * failed once (at the latest after its start timeout). Never rejects. The servers' tools join
   * the registry one by one as they become ready: a caller that serves requests need not wait.
   * Calling it again returns the same promise.
   */
  start(): Promise<void> {
    this.started ??= Promise.all([...this.connections.values()].map((c) => c.start())).then(() => undefined);
    return this.started;
  }

  /** Names of the enabled servers whose first start is still under way (readiness). */
  startingServers(): string[] {
    return [...this.connections.values()].filter((c) => !c.firstStartDone).map((c) => c.name);
  }

  get registry(): ToolRegistry {
    return this.current;
  }

  connection(name: string): McpConnection | undefined {
    return this.connections.get(name);
  }

  states(): ServerState[] {
    return [...this.connections.values()].map((c) => c.status);
  }

  /** Names of enabled servers (what `x-mcp-servers` and aliases may select). */
  serverNames(): string[] {
    return this.servers.filter((s) => !s.disabled).map((s) => s.name);
  }

  select(servers: readonly string[] | undefined): ToolSet {
    return this.current.select(servers);
  }

  /**
   * The pool as the model doors see it: without the tools that need an MCP client (see
   * ToolRegistry.forModels). /mcp and the chat tool, which have a client, see every tool.
   */
  forModels(): Pick<McpPool, "serverNames" | "select" | "exposed" | "origin"> {
    return {
      serverNames: () => this.serverNames(),
      select: (servers) => this.current.forModels().select(servers),
      exposed: (server, tool) => this.exposed(server, tool),
      origin: (name) => this.origin(name),
    };
  }

  /** The exposed (namespaced) name of a server's tool, as its server names it. */
  exposed(server: string, tool: string): string | undefined {
    return this.current.list().find((entry) => entry.server === server && entry.tool.name === tool)?.name;
  }

  /** The server and original name of an exposed tool. */
  origin(name: string): { server: string; tool: string } | undefined {
    const entry = this.current.get(name);
    return entry ? { server: entry.server, tool: entry.tool.name } : undefined;
  }

  /** Name collisions caused by `prefix: ""` (refused at start-up). */
  emptyPrefixCollisions(): ToolNameCollision[] {
    return emptyPrefixCollisions({ names: new Map(), byOriginal: new Map(), collisions: this.nameCollisions });
  }

  onChange(listener: (registry: ToolRegistry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Calls `listener` after every successful connect of a server: its first start and each restart
   * (a crashed server comes back as a new session that has none of the old one's state, such as
   * resource subscriptions or the logging level). Called after the registry was rebuilt.
   */
  onReady(listener: ReadyListener): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /**
   * Calls `listener` whenever a server's status changed (starting, ready, failed, closed, and a
   * new error while failed), with the server's new state.
   */
  onStatus(listener: StatusListener): () => void {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  private announceStatus(state: ServerState): void {
    for (const listener of this.statusListeners) {
      try {
        listener(state);
      } catch (error) {
        this.options.logger.warn({ server: state.name, err: String(error) }, "onStatus listener failed");
      }
    }
  }

  private announceReady(server: string, info: ReadyInfo): void {
    for (const listener of this.readyListeners) {
      try {
        listener(server, info);
      } catch (error) {
        this.options.logger.warn({ server, err: String(error) }, "onReady listener failed");
      }
    }
  }

  private rebuild(): void {
    const entries: { server: string; prefix: string; tool: string }[] = [];
    const toolsByKey = new Map<string, RegisteredTool["tool"]>();
    const clientOnly = new Set<string>();
    for (const connection of this.connections.values()) {
      const allowed = compileToolFilter(connection.config.tools);
      for (const tool of connection.tools) {
        if (!allowed(tool.name) || this.needsTasks(connection.name, tool)) continue;
        entries.push({ server: connection.name, prefix: connection.config.prefix, tool: tool.name });
        if (!connection.offeredToModels(tool.name)) clientOnly.add(`${connection.name}\u0000${tool.name}`);
        toolsByKey.set(`${connection.name}\u0000${tool.name}`, tool);
      }
    }
    const map = buildToolNameMap(entries);
    this.nameCollisions = map.collisions;
    for (const collision of emptyPrefixCollisions(map)) {
      this.options.logger.error({ name: collision.name, tools: collision.tools }, 'tool names collide because of prefix ""; the colliding tools got hash suffixes');
    }
    const tools = [...map.names].map(([name, ref]): RegisteredTool => {
      const key = `${ref.server}\u0000${ref.tool}`;
      return { name, server: ref.server, tool: toolsByKey.get(key)!, ...(clientOnly.has(key) ? { clientOnly: true } : {}) };
    });
    this.current = new ToolRegistry(++this.version, tools, this.caller);
    for (const listener of this.listeners) listener(this.current);
  }

  /**
   * A tool that must be called as a task (MCP 2025-11-25 `execution.taskSupport: "required"`)
   * cannot be called here: the gateway does not support tasks, so a plain call is refused
   * ("requires task augmentation"). It is left out rather than offered to models and clients
   * that could never run it; said once per tool.
   */
  private needsTasks(server: string, tool: RegisteredTool["tool"]): boolean {
    if (tool.execution?.taskSupport !== "required") return false;
    const key = `${server}\u0000${tool.name}`;
    if (!this.taskToolsReported.has(key)) {
      this.taskToolsReported.add(key);
      this.options.logger.warn({ server, tool: tool.name }, "tool left out: it must be called as a task, which the gateway does not support");
    }
    return true;
  }

  /**
   * Shutdown has begun: no server is started or restarted from now on (see
   * McpConnection.stopRestarts); calls in flight to running servers go on until close().
   */
  stopRestarts(): void {
    for (const connection of this.connections.values()) connection.stopRestarts();
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.close()));
  }
}
