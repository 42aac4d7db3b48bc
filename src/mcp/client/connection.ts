/**
 * One MCP server: connects it, keeps its tool list current, restarts it when it dies, and
 * closes it for good on shutdown. A server that fails never blocks the others: its state says
 * why (with the tail of its stderr) and it is retried with backoff.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { ToolProgress } from "../../core/index.ts";
import { Backoff } from "./backoff.ts";
import { StderrTail } from "./stderr-tail.ts";
import { connectClient, type OpenedTransport } from "./transport.ts";

export type ServerStatus = "starting" | "ready" | "failed" | "disabled" | "closed";

export interface ServerState {
  name: string;
  transport: ServerConfig["transport"] | "sse";
  status: ServerStatus;
  toolCount: number;
  startupMs?: number;
  error?: string;
  restarts: number;
  /** When the next reconnect attempt is due (epoch ms), while failed. */
  retryAt?: number;
}

export interface ConnectionOptions {
  logger: Logger;
  clientInfo?: { name: string; version: string };
  /** How long connecting + listing tools may take. */
  startupTimeoutMs?: number;
  backoff?: Backoff;
  /** Called with each new SDK Client before it connects (to register client capabilities/handlers). */
  configureClient?: (client: Client, server: ServerConfig) => void;
  /** Called whenever the tool list changed (connect, reconnect, list_changed, failure). */
  onToolsChanged?: () => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (progress: ToolProgress) => void;
}

/** A connection stays up this long before a later crash counts as a fresh failure. */
const STABLE_AFTER_MS = 10_000;

export class McpConnection {
  private client: Client | undefined;
  private opened: OpenedTransport | undefined;
  private toolList: Tool[] = [];
  private state: ServerState;
  private readonly stderr = new StderrTail();
  private readonly backoff: Backoff;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private connectedAt = 0;
  private closed = false;

  constructor(
    readonly config: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.backoff = options.backoff ?? new Backoff();
    this.state = {
      name: config.name,
      transport: config.transport,
      status: config.disabled ? "disabled" : "starting",
      toolCount: 0,
      restarts: 0,
    };
  }

  get name(): string {
    return this.config.name;
  }

  get tools(): readonly Tool[] {
    return this.toolList;
  }

  get status(): ServerState {
    return { ...this.state };
  }

  /** The connected SDK client (for resources, prompts, completions), if ready. */
  get sdkClient(): Client | undefined {
    return this.state.status === "ready" ? this.client : undefined;
  }

  /** Connects once; a failure is recorded and retried in the background, never thrown. */
  start(): Promise<void> {
    if (this.config.disabled || this.closed) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const started = Date.now();
    this.setState({ status: "starting" });
    const client = new Client(this.options.clientInfo ?? { name: "mcp-gateway", version: "0.1.0" }, { capabilities: {} });
    this.options.configureClient?.(client, this.config);
    try {
      const opened = await connectClient(client, this.config, this.options.startupTimeoutMs ?? 30_000);
      this.watchStderr(opened);
      if (this.closed) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.opened = opened;
      client.onclose = () => this.onUnexpectedClose(client);
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshTools());
      this.toolList = await this.listAllTools(client);
      this.connectedAt = Date.now();
      this.setState({ status: "ready", transport: opened.kind, startupMs: Date.now() - started, error: undefined, retryAt: undefined });
      this.options.logger.info({ server: this.name, tools: this.toolList.length, ms: this.state.startupMs }, "mcp server ready");
    } catch (error) {
      await client.close().catch(() => undefined);
      this.fail(error);
    }
    this.options.onToolsChanged?.();
  }

  private watchStderr(opened: OpenedTransport): void {
    opened.stderr?.on("data", (chunk: Buffer | string) => {
      const text = chunk.toString();
      this.stderr.push(text);
      this.options.logger.debug({ server: this.name, stderr: text.trimEnd() }, "mcp server stderr");
    });
  }

  private async listAllTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  private async refreshTools(): Promise<void> {
    const client = this.client;
    if (!client || this.state.status !== "ready") return;
    try {
      this.toolList = await this.listAllTools(client);
      this.setState({});
      this.options.logger.info({ server: this.name, tools: this.toolList.length }, "mcp server tools changed");
      this.options.onToolsChanged?.();
    } catch (error) {
      this.options.logger.warn({ server: this.name, err: String(error) }, "refreshing tools failed");
    }
  }

  private onUnexpectedClose(client: Client): void {
    if (this.closed || client !== this.client) return;
    this.client = undefined;
    this.opened = undefined;
    // A server that ran for a while before dying is restarted promptly; one that dies right
    // after starting keeps climbing the backoff.
    if (Date.now() - this.connectedAt > STABLE_AFTER_MS) this.backoff.reset();
    this.setState({ restarts: this.state.restarts + 1 });
    this.fail(new Error("the server closed the connection (exited or crashed)"));
    this.options.onToolsChanged?.();
  }

  private fail(error: unknown): void {
    const tail = this.stderr.tail();
    const message = `${error instanceof Error ? error.message : String(error)}${tail ? `\n${tail}` : ""}`;
    this.toolList = [];
    const delay = this.backoff.next();
    this.setState({ status: "failed", error: message, retryAt: Date.now() + delay });
    this.options.logger.warn({ server: this.name, err: message, retryInMs: delay }, "mcp server unavailable");
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.start(), delay);
    this.retryTimer.unref();
  }

  private setState(patch: Partial<ServerState>): void {
    this.state = { ...this.state, ...patch, toolCount: this.toolList.length };
  }

  /**
   * Calls a tool. Waits for a (re)start in progress; throws when the server is not available
   * or the call fails at the protocol level (the registry turns that into an error result).
   */
  async callTool(name: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    await this.awaitReadiness();
    const client = this.client;
    if (!client || this.state.status !== "ready") {
      throw new Error(`MCP server "${this.name}" is not available (${this.state.status}${this.state.error ? `: ${this.state.error.split("\n")[0]}` : ""})`);
    }
    const result = await client.callTool({ name, arguments: args }, CallToolResultSchema, {
      ...(options.signal ? { signal: options.signal } : {}),
      timeout: options.timeoutMs ?? this.config.timeoutMs,
      ...(options.onProgress ? { onprogress: (p) => options.onProgress!(p), resetTimeoutOnProgress: false } : {}),
    });
    return result as CallToolResult;
  }

  /**
   * Waits for a start in progress. A server that failed only once or twice (typically a crash
   * during the previous call) is restarted now rather than at its backoff time, so the next
   * call works; one that keeps failing waits out its backoff.
   */
  private async awaitReadiness(): Promise<void> {
    if (!this.connecting && this.state.status === "failed" && !this.closed && this.backoff.attempts <= 2) {
      clearTimeout(this.retryTimer);
      void this.start();
    }
    if (this.connecting) await this.connecting;
  }

  /** Closes for good: no more restarts; the SDK escalates SIGTERM/SIGKILL for a stubborn child. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    if (this.connecting) await this.connecting.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.opened = undefined;
    this.toolList = [];
    this.setState({ status: "closed" });
    if (client) await client.close().catch(() => undefined);
  }

  /** The stdio child's pid (tests and diagnostics). */
  get pid(): number | null {
    return this.opened?.pid?.() ?? null;
  }
}
