/**
 * One MCP server: connects it, keeps its tool list current, restarts it when it dies, and
 * closes it for good on shutdown. A server that fails never blocks the others: its state says
 * why (with the tail of its stderr) and it is retried with backoff. A start is bounded by the
 * server's start timeout (a hung one fails and is retried like a crash); a command that cannot
 * be run at all (ENOENT, EACCES) fails at once, named, and is not retried.
 */
import { Client, type CallToolResult, type ClientCapabilities, type JSONRPCMessage, type Tool } from "@modelcontextprotocol/client";
import { nativeSignal } from "../../core/abort-controller.ts";
import type { ServerConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { ToolProgress } from "../../core/index.ts";
import type { TraceCarrier } from "../../core/request-context.ts";
import { Backoff } from "./backoff.ts";
import { StderrTail } from "./stderr-tail.ts";
import { connectClient, spawnFailure, type OpenedTransport } from "./transport.ts";
import { handlerRegistry, upstreamClient, type UpstreamClient, type UpstreamHandlers } from "./upstream.ts";
import { endProcesses, markedProcesses, newMarker } from "./server-processes.ts";
import { EraVerdict, eraOf, versionNegotiation } from "./era.ts";
import { listenForChanges } from "./listen.ts";
import { instrumentMcpRequest, type McpCallReporter } from "./instrument.ts";
import { listToolNamesAs } from "./model-tools-probe.ts";

export type ServerStatus = "starting" | "ready" | "failed" | "disabled" | "unavailable" | "closed";

export interface ServerState {
  name: string;
  transport: ServerConfig["transport"] | "sse";
  status: ServerStatus;
  toolCount: number;
  startupMs?: number;
  error?: string;
  restarts: number;
  /** Connection attempts made so far (the first start included); grows while a server keeps failing. */
  attempts: number;
  /** When the next reconnect attempt is due (epoch ms), while failed and to be retried. */
  retryAt?: number;
}

export interface ConnectionOptions {
  logger: Logger;
  clientInfo?: { name: string; version: string };
  /**
   * How long a start (spawn or connect, initialize, tools/list) may take; overrides the server's
   * `startTimeoutMs` (tests).
   */
  startupTimeoutMs?: number;
  backoff?: Backoff;
  /** Called for each new session of the server before it connects (client capabilities, handlers for what the server sends). */
  upstreamHandlers?: UpstreamHandlers;
  /** Called whenever the tool list changed (connect, reconnect, list_changed, failure). */
  onToolsChanged?: () => void;
  /**
   * What the gateway can serve without an MCP client (modelSurfaceCapabilities). When set, each
   * start (and each tools/list_changed) also learns which tools the server lists to a client
   * with only these — the tools models may be offered (see model-tools-probe.ts).
   */
  modelCapabilities?: ClientCapabilities;
  /**
   * Called after every successful connect — the first start and each restart — once the server
   * is ready (its tools listed, `onToolsChanged` already called), with the new session's details.
   * State set up on the previous session (subscriptions, logging level) is gone: re-apply it here.
   */
  onReady?: (server: string, info: ReadyInfo) => void;
  /** Called whenever the server's status changed (starting, ready, failed, closed), with its new state. */
  onStatus?: (state: ServerState) => void;
  /**
   * False: one start only — a failed start is not retried and a crash is not restarted, so the
   * state after `start()` is final (`check`, which reports what each server's start did).
   * Default true.
   */
  retry?: boolean;
  /** Told after each request to the server (the gateway's metrics): how long, and the `error.type` if it failed. */
  onCall?: McpCallReporter;
}

/** What `onReady` gets: which connect of the server this was. */
export interface ReadyInfo {
  /** True when an earlier session of this server had been ready (a restart, not the first start). */
  restart: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  onProgress?: (progress: ToolProgress) => void;
  /** The client's trace context for `_meta` while the gateway does not trace (ToolCallContext.trace). */
  trace?: TraceCarrier;
}

/** When the server's config gives no start timeout (a ServerConfig made by hand). */
const DEFAULT_START_TIMEOUT_MS = 30_000;

/** A start that did not finish within the server's start timeout. */
class StartTimeout extends Error {}

/** Upper bound on tools/list pages (at the SDK's default page sizes, far beyond any real server). */
const MAX_TOOL_PAGES = 1000;

/** A connection stays up this long before a later crash counts as a fresh failure. */
const STABLE_AFTER_MS = 10_000;
/** How long close() waits for a killed child to be gone. */
const CLOSE_WAIT_MS = 3_000;
/**
 * After its stdin closes, how long a stdio server gets to exit on its own before the gateway
 * signals what its start left running (then SIGKILL after STOP_GRACE_MS). Together well under
 * the 2 s a desktop client (the MCP SDK's StdioClientTransport) gives the gateway itself before
 * its SIGTERM, and the 4 s before its SIGKILL, which would orphan the servers.
 */
const EXIT_ON_EOF_MS = 500;
const STOP_GRACE_MS = 1_000;

export class McpConnection {
  private client: Client | undefined;
  /** The ready session as the gateway's MCP server side sees it: one per `client`. */
  private upstreamView: UpstreamClient | undefined;
  private opened: OpenedTransport | undefined;
  private toolList: Tool[] = [];
  /** The tools models may be offered (by name), when learnt; see ConnectionOptions.modelCapabilities. */
  private modelToolNames: ReadonlySet<string> | undefined;
  /** Probe sessions in progress (close() ends them rather than waiting for their timeout). */
  private readonly probes = new Set<Client>();
  private state: ServerState;
  private readonly stderr = new StderrTail();
  /** The server's era, as the last connect found it ("auto"): a restart connects without probing. */
  private readonly era = new EraVerdict();
  private readonly backoff: Backoff;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private connectedAt = 0;
  /** Whether a session of this server has ever been ready (the next ready one is a restart). */
  private everReady = false;
  /** Whether the first start has ended (ready or failed), or there is none to make (disabled, unavailable, closed). */
  private firstStartEnded: boolean;
  /**
   * Set when the server cannot be started at all (its command does not exist or is not
   * executable): it is failed for good, never retried.
   */
  private permanentFailure = false;
  private closed = false;
  /** Set once the gateway is shutting down: nothing is started or restarted any more (see stopRestarts). */
  private stopping = false;
  /** Progress handlers of calls in flight, by the progress token this connection gave them. */
  private readonly progressHandlers = new Map<string, (progress: ToolProgress) => void>();
  private progressTokens = 0;
  /** The client of a start in progress (close() must be able to end it). */
  private startingClient: Client | undefined;
  /** Resolves when a client's transport has closed (for stdio: the child has exited). */
  private readonly transportClosed = new WeakMap<Client, Promise<void>>();
  /** Each stdio start's environment marker: finds what the start left running (server-processes.ts). */
  private readonly markers = new WeakMap<Client, string>();

  constructor(
    readonly config: ServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.backoff = options.backoff ?? new Backoff();
    this.state = {
      name: config.name,
      transport: config.transport,
      status: config.disabled ? "disabled" : config.missingVariables.length > 0 ? "unavailable" : "starting",
      ...(config.missingVariables.length > 0 && !config.disabled ? { error: `not started: set ${config.missingVariables.join(", ")} (unset in the environment; write \${${config.missingVariables[0]}:-} where empty is fine)` } : {}),
      toolCount: 0,
      restarts: 0,
      attempts: 0,
    };
    this.firstStartEnded = this.state.status !== "starting";
  }

  get name(): string {
    return this.config.name;
  }

  get tools(): readonly Tool[] {
    return this.toolList;
  }

  /**
   * Whether a model may be offered this tool: false for one the server lists only to clients
   * with capabilities the gateway cannot serve without an MCP client (elicitation, roots).
   */
  offeredToModels(tool: string): boolean {
    return this.modelToolNames === undefined || this.modelToolNames.has(tool);
  }

  get status(): ServerState {
    return { ...this.state };
  }

  /** False while the server's first start is under way (or not begun); true once it ended, either way. */
  get firstStartDone(): boolean {
    return this.firstStartEnded;
  }

  /** The start timeout in force for this server. */
  get startTimeoutMs(): number {
    return this.options.startupTimeoutMs ?? this.config.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  }

  /** The connected SDK client, if ready (src/mcp and its tests only; everyone else uses `upstream`). */
  get sdkClient(): Client | undefined {
    return this.state.status === "ready" ? this.client : undefined;
  }

  /** The ready session (for forwarding resources, prompts, completions, …); a restart makes a new one. */
  get upstream(): UpstreamClient | undefined {
    return this.state.status === "ready" ? this.upstreamView : undefined;
  }

  /** Connects once; a failure is recorded and retried in the background, never thrown. */
  start(): Promise<void> {
    if (this.config.disabled || this.config.missingVariables.length > 0 || this.closed || this.stopping || this.permanentFailure) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** Resolves when the start in progress (if any) has ended, either way; starts nothing. */
  settled(): Promise<void> {
    return this.connecting ?? Promise.resolve();
  }

  private async connect(): Promise<void> {
    const started = Date.now();
    this.setState({ status: "starting", attempts: this.state.attempts + 1 });
    // Lists are walked whole by the SDK (its cache then knows every tool's outputSchema, which
    // callTool validates structuredContent against), up to MAX_TOOL_PAGES pages.
    const client = this.newClient({}, this.startTimeoutMs);
    this.options.upstreamHandlers?.(this.name, handlerRegistry(client));
    // Set before connecting (Protocol reads `onclose` when the transport closes): it tells
    // close() when the child is really gone, and reports crashes of a ready server.
    this.transportClosed.set(
      client,
      new Promise<void>((resolve) => {
        client.onclose = () => {
          resolve();
          this.onUnexpectedClose(client);
        };
      }),
    );
    this.startingClient = client;
    const marker = newMarker();
    this.markers.set(client, marker);
    const timeoutMs = this.startTimeoutMs;
    /** What the start was waiting for (named when it times out). */
    let waitingFor = this.config.transport === "stdio" ? "an answer to initialize" : "the connection and initialize";
    let timer: NodeJS.Timeout | undefined;
    const handshake = (async () => {
      // The SDK's own initialize timeout is a backstop only: the deadline below says why.
      const opened = await connectClient(client, this.config, timeoutMs + 1_000, {
        onStderr: (text) => this.onStderr(text),
        onMessage: (message) => this.routeProgress(message),
        marker,
        prior: this.era.prior,
      });
      this.era.remember(client, this.config);
      client.setNotificationHandler("notifications/tools/list_changed", () => this.refreshTools());
      waitingFor = "the tools/list answer";
      const tools = await this.listAllTools(client);
      waitingFor = "the tools/list answer of a second session declaring only what models can use";
      const modelTools = await this.probeModelTools(timeoutMs);
      return { opened, tools, modelTools };
    })();
    // The whole start (spawn or connect, initialize, tools/list) is bounded, not only initialize:
    // a server that never finishes is failed (and retried with backoff) like one that crashed.
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StartTimeout(`start timed out after ${timeoutMs} ms waiting for ${waitingFor} (mcpServers.${this.name}.startTimeoutMs, default gateway.serverStartTimeoutMs)`)),
        timeoutMs,
      );
    });
    handshake.catch(() => undefined); // after a timeout, its own failure is nobody's
    try {
      const { opened, tools, modelTools } = await Promise.race([handshake, deadline]);
      clearTimeout(timer);
      if (this.closed) {
        await this.closeClient(client);
        return;
      }
      this.client = client;
      this.upstreamView = upstreamClient(client, () => this.toolList, { server: this.name, ...(this.options.onCall ? { report: this.options.onCall } : {}) });
      this.opened = opened;
      this.toolList = tools;
      this.modelToolNames = modelTools;
      this.connectedAt = Date.now();
      this.setState({ status: "ready", transport: opened.kind, startupMs: Date.now() - started, error: undefined, retryAt: undefined });
      this.options.logger.info({ server: this.name, tools: this.toolList.length, ms: this.state.startupMs, era: eraOf(client) }, "mcp server ready");
      // A reopened stream missed what changed while none was open: the tools are listed again.
      if (eraOf(client) === "modern") {
        void listenForChanges(client, { server: this.name, logger: this.options.logger, current: () => this.client === client, reopened: () => void this.refreshTools() });
      }
    } catch (error) {
      clearTimeout(timer);
      // Forget the half-connected client, so that closing it is not taken for a crash of a
      // ready server (which would count a restart and schedule a second retry).
      if (this.client === client) {
        this.client = undefined;
        this.upstreamView = undefined;
        this.opened = undefined;
      }
      await this.closeClient(client);
      // A kept era verdict may be what failed (the server changed era): the next start probes.
      this.era.forget();
      if (!this.closed) {
        const cannotStart = spawnFailure(error, this.config);
        if (cannotStart) this.failForGood(cannotStart);
        else this.fail(error);
      }
    } finally {
      this.startingClient = undefined;
      this.firstStartEnded = true;
    }
    this.options.onToolsChanged?.();
    // Still the ready client (it did not die while the tool list was being rebuilt).
    if (this.client === client && this.state.status === "ready") this.announceReady();
  }

  private announceReady(): void {
    const restart = this.everReady;
    this.everReady = true;
    try {
      this.options.onReady?.(this.name, { restart });
    } catch (error) {
      this.options.logger.warn({ server: this.name, err: String(error) }, "onReady handler failed");
    }
  }

  private onStderr(text: string): void {
    this.stderr.push(text);
    this.options.logger.debug({ server: this.name, stderr: text.trimEnd() }, "mcp server stderr");
  }

  /**
   * Delivers notifications/progress for our calls. Called synchronously for each incoming
   * message, in order: the SDK's own progress routing runs its handlers a microtask later and
   * drops the handler as soon as the response arrives, so a progress notification that arrives
   * in the same chunk as the response (typically the last one, "n of n") was lost.
   */
  private routeProgress(message: JSONRPCMessage): void {
    if (!("method" in message) || message.method !== "notifications/progress" || "id" in message) return;
    const params = message.params as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown } | undefined;
    const handler = this.progressHandlers.get(String(params?.progressToken));
    if (!handler || typeof params?.progress !== "number") return;
    handler({
      progress: params.progress,
      ...(typeof params.total === "number" ? { total: params.total } : {}),
      ...(typeof params.message === "string" ? { message: params.message } : {}),
    });
  }

  /**
   * Every page of the server's tools. The SDK walks the pages (stopping at a repeated cursor,
   * failing past MAX_TOOL_PAGES: a server that never stops paging must not hang the start-up)
   * and caches the whole list, so that the output schema of a tool on any page is known when it
   * is called. `fresh`: never an answer from the SDK's cache (after a list_changed).
   */
  private async listAllTools(client: Client, fresh = false): Promise<Tool[]> {
    const { tools } = await client.listTools(undefined, fresh ? { cacheMode: "refresh" } : undefined);
    return tools;
  }

  /** A client for one session with this server: the start's, or a probe's with its own capabilities. */
  private newClient(capabilities: ClientCapabilities, timeoutMs: number): Client {
    const negotiation = versionNegotiation(this.config, timeoutMs);
    return new Client(this.options.clientInfo ?? { name: "mcp-gateway", version: "0.1.0" }, {
      capabilities,
      listMaxPages: MAX_TOOL_PAGES,
      ...(negotiation ? { versionNegotiation: negotiation } : {}),
    });
  }

  /**
   * The names of the tools models may be offered, learnt in a second, short session (see
   * model-tools-probe.ts); undefined when there is nothing to learn (no model surface) or the
   * probe failed — then models are offered every tool, and one that needs a client fails with
   * a clear error when called.
   */
  private async probeModelTools(timeoutMs: number): Promise<Set<string> | undefined> {
    const capabilities = this.options.modelCapabilities;
    if (!capabilities || !this.config.probeModelTools) return undefined;
    const probe = this.newClient(capabilities, timeoutMs);
    this.transportClosed.set(probe, new Promise<void>((resolve) => (probe.onclose = resolve)));
    const marker = newMarker();
    this.markers.set(probe, marker);
    this.probes.add(probe);
    try {
      // In the era the server's session was found to speak (no second era probe).
      return await listToolNamesAs(probe, this.config, timeoutMs, { marker, prior: this.era.prior });
    } catch (error) {
      this.options.logger.warn({ server: this.name, err: error instanceof Error ? error.message : String(error) }, "could not learn which tools need an MCP client's capabilities: models are offered every tool");
      return undefined;
    } finally {
      this.probes.delete(probe);
      await this.closeClient(probe);
    }
  }

  private async refreshTools(): Promise<void> {
    const client = this.client;
    if (!client || this.state.status !== "ready") return;
    try {
      this.toolList = await this.listAllTools(client, true);
      this.modelToolNames = await this.probeModelTools(this.startTimeoutMs);
      this.setState({});
      this.options.logger.info({ server: this.name, tools: this.toolList.length }, "mcp server tools changed");
      this.options.onToolsChanged?.();
    } catch (error) {
      this.options.logger.warn({ server: this.name, err: String(error) }, "refreshing tools failed");
    }
  }

  private onUnexpectedClose(client: Client): void {
    // While connecting, a close is a failed attempt that connect() itself reports.
    if (this.closed || client !== this.client || this.state.status !== "ready") return;
    this.client = undefined;
    this.upstreamView = undefined;
    this.opened = undefined;
    // What the dead start left running (a server below a crashed wrapper) goes before a new one starts.
    const marker = this.markers.get(client);
    if (marker) void endProcesses(markedProcesses(marker));
    // A server that ran for a while before dying is restarted promptly; one that dies right
    // after starting keeps climbing the backoff.
    if (Date.now() - this.connectedAt > STABLE_AFTER_MS) this.backoff.reset();
    this.setState({ restarts: this.state.restarts + 1 });
    // Its tools stay listed until the restart attempt has succeeded or failed: the next call
    // to one of them restarts the server at once (awaitReadiness) and works. Dropping them here
    // made that next call fail with "no tool named ..." until the background restart was done.
    this.fail(new Error("the server closed the connection (exited or crashed)"), { keepTools: true });
  }

  /**
   * The server cannot be started at all (its command does not exist or cannot be run): every
   * retry would fail the same way at once, so it is failed for good, with the reason, and never
   * retried. Fixing the config and restarting the gateway is the way out.
   */
  private failForGood(reason: string): void {
    this.permanentFailure = true;
    this.toolList = [];
    const message = `${reason}; not retried: fix the config and restart the gateway`;
    this.setState({ status: "failed", error: message, retryAt: undefined });
    this.options.logger.error({ server: this.name, err: message }, "mcp server cannot be started");
  }

  /** Whether a failed or crashed server is started again (not while closing or shutting down, nor with `retry: false`). */
  private get restarts(): boolean {
    return !this.closed && !this.stopping && this.options.retry !== false;
  }

  private fail(error: unknown, { keepTools = false } = {}): void {
    const tail = this.stderr.tail();
    const message = `${error instanceof Error ? error.message : String(error)}${tail ? `\n${tail}` : ""}`;
    if (!keepTools) this.toolList = [];
    if (!this.restarts) {
      this.setState({ status: "failed", error: message, retryAt: undefined });
      const why = this.stopping ? "the gateway is shutting down" : this.closed ? "closed" : "one start only";
      this.options.logger.warn({ server: this.name, err: message, notRestarted: why }, "mcp server unavailable");
      return;
    }
    const delay = this.backoff.next();
    this.setState({ status: "failed", error: message, retryAt: Date.now() + delay });
    this.options.logger.warn({ server: this.name, err: message, retryInMs: delay }, "mcp server unavailable");
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.start(), delay);
    this.retryTimer.unref();
  }

  /**
   * The gateway is shutting down: from now on nothing is started or restarted — not a crashed
   * server (a SIGTERM sent to the whole process group stops the MCP servers along with the
   * gateway, which then must not start them again), not a retry that was due, not a tool call's
   * restart. Calls in flight to running servers go on; close() ends the servers afterwards.
   */
  stopRestarts(): void {
    this.stopping = true;
    clearTimeout(this.retryTimer);
    if (this.state.retryAt !== undefined) this.setState({ retryAt: undefined });
  }

  private setState(patch: Partial<ServerState>): void {
    const before = this.state.status;
    this.state = { ...this.state, ...patch, toolCount: this.toolList.length };
    if (this.state.status === before && patch.error === undefined) return;
    try {
      this.options.onStatus?.({ ...this.state });
    } catch (error) {
      this.options.logger.warn({ server: this.name, err: String(error) }, "onStatus handler failed");
    }
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
    // Progress goes through our own token and routeProgress(), not the SDK's `onprogress`
    // (which can lose the last notification; see routeProgress).
    const token = options.onProgress ? `gateway-progress-${++this.progressTokens}` : undefined;
    if (token) this.progressHandlers.set(token, options.onProgress!);
    try {
      // Timed, and in a span when tracing is on, its context in `_meta` (traceparent): a server that traces joins the trace.
      // The SDK links the call's signal to its transport's (AbortSignal.any): Node's own signal.
      const signal = nativeSignal(options.signal);
      const params = { name, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) };
      return await instrumentMcpRequest(
        this.name,
        "tools/call",
        params,
        this.options.onCall,
        async (sent) => (await client.callTool(sent as typeof params, { ...(signal ? { signal } : {}), timeout: options.timeoutMs ?? this.config.timeoutMs })) as CallToolResult,
        options.trace,
      );
    } finally {
      if (token) this.progressHandlers.delete(token);
    }
  }

  /**
   * Waits for a start in progress. A server that failed only once or twice (typically a crash
   * during the previous call) is restarted now rather than at its backoff time, so the next
   * call works; one that keeps failing waits out its backoff.
   */
  private async awaitReadiness(): Promise<void> {
    if (!this.connecting && this.state.status === "failed" && this.restarts && !this.permanentFailure && this.backoff.attempts <= 2) {
      clearTimeout(this.retryTimer);
      void this.start();
    }
    if (this.connecting) await this.connecting;
  }

  /**
   * Closes for good: no more restarts. The SDK escalates SIGTERM/SIGKILL for a stubborn child;
   * processes that child started (the real server below an `npx` or `sh -c` wrapper) are ended
   * after it, so none outlives the gateway.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    // A start in progress is ended, not awaited: a server that never answers initialize would
    // otherwise hold shutdown up to the start-up timeout (30 s by default).
    const starting = this.startingClient;
    if (starting) await this.closeClient(starting);
    await Promise.all([...this.probes].map((probe) => this.closeClient(probe)));
    if (this.connecting) await this.connecting.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.upstreamView = undefined;
    this.opened = undefined;
    this.toolList = [];
    this.firstStartEnded = true;
    this.setState({ status: "closed" });
    if (client) await this.closeClient(client);
  }

  /**
   * Closes a client and waits until its transport has closed. For stdio the SDK ends stdin,
   * then waits 2 s before SIGTERM and 2 s more before SIGKILL, and returns right after sending
   * SIGKILL. Where the start's processes can be found (its marker), the gateway does not wait
   * that long: once the child has exited after EOF, or EXIT_ON_EOF_MS have passed, everything
   * the start left running (the child, and a server below an `npx` or `sh -c` wrapper, which
   * often ignores EOF) gets SIGTERM, then SIGKILL. The wait for the transport is bounded, in
   * case a grandchild keeps the child's pipes open.
   */
  private async closeClient(client: Client): Promise<void> {
    const closed = this.transportClosed.get(client) ?? Promise.resolve();
    const closing = client.close().catch(() => undefined); // ends stdin at once
    const marker = this.markers.get(client);
    if (marker) {
      await within(closed, EXIT_ON_EOF_MS);
      await endProcesses(markedProcesses(marker), STOP_GRACE_MS);
    }
    await closing;
    await within(closed, CLOSE_WAIT_MS);
  }

  /** The stdio child's pid (tests and diagnostics). */
  get pid(): number | null {
    return this.opened?.pid?.() ?? null;
  }
}

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
