/**
 * The gateway's observability, one per gateway: the Prometheus metrics, the ring of recent
 * requests behind the web view, and per-request observations (request.ts) that report to them and
 * to the trace. Wired by the runtime; the HTTP app mounts its routes (routes.ts).
 */
import type { Logger } from "pino";
import type { ToolResultBlock } from "../../core/index.ts";
import type { StateBackend, StateStore, Counters } from "../state/store.ts";
import { excerpt, type Scrub } from "./excerpt.ts";
import { GatewayMetrics, type ScrapeSources } from "./metrics.ts";
import { RequestObservation, type IncomingRequest, type ObservationContext } from "./request.ts";
import { RequestRing } from "./ring.ts";
import { tracingOn } from "../../core/tracing.ts";
import type { McpCallReport } from "../../mcp/client/instrument.ts";

export interface ObservabilitySettings {
  /** Prometheus metrics at GET /metrics (default on). */
  metrics: boolean;
  /** The web view at /ui (default on). */
  ui: boolean;
  /** How many recent requests the web view keeps (0: none). */
  recentRequests: number;
  /** Prompts and tool arguments/results on trace spans, redacted (default off). */
  captureContent: boolean;
}

export const DEFAULT_OBSERVABILITY: ObservabilitySettings = { metrics: true, ui: true, recentRequests: 200, captureContent: false };

/** A tool of an MCP server as the servers page shows it: the schema as listed, and as each provider dialect gets it. */
export interface ServerToolView {
  name: string;
  tool: string;
  description?: string;
  inputSchema: unknown;
  targets: { target: string; providers: string[]; inputSchema: unknown; strict?: boolean; warnings: string[] }[];
}

export interface ServerView {
  name: string;
  transport: string;
  status: string;
  toolCount: number;
  restarts: number;
  attempts: number;
  startupMs?: number;
  error?: string;
  retryAt?: number;
  tools: ServerToolView[];
  /** The last failed tool calls (newest first). */
  lastErrors: { at: number; tool: string; message: string }[];
}

export interface ObservabilityOptions {
  settings: ObservabilitySettings;
  logger: Logger;
  scrub: Scrub;
  origin(name: string): { server: string; tool: string } | undefined;
  sources: ScrapeSources;
  /** The MCP servers with their tools (the servers page). */
  servers(): Omit<ServerView, "lastErrors">[];
}

/** The gateway's front doors (POST routes), by path: their label in metrics and in the web view. */
export const DOORS: Readonly<Record<string, string>> = {
  "/v1/chat/completions": "chat_completions",
  "/v1/messages": "messages",
  "/v1/responses": "responses",
  "/v1/embeddings": "embeddings",
  "/v1/messages/count_tokens": "count_tokens",
};

const LAST_ERRORS = 10;

export class Observability {
  readonly settings: ObservabilitySettings;
  readonly metrics: GatewayMetrics | undefined;
  readonly ring: RequestRing | undefined;
  private readonly context: ObservationContext;
  private readonly lastErrors = new Map<string, ServerView["lastErrors"]>();
  private readonly streamClosers = new Set<() => void>();

  constructor(private readonly options: ObservabilityOptions) {
    const settings = options.settings;
    this.settings = settings;
    this.metrics = settings.metrics ? new GatewayMetrics(options.sources) : undefined;
    this.ring = settings.ui && settings.recentRequests > 0 ? new RequestRing(settings.recentRequests) : undefined;
    this.context = {
      ...(this.metrics ? { metrics: this.metrics } : {}),
      ...(this.ring ? { ring: this.ring } : {}),
      logger: options.logger,
      scrub: options.scrub,
      captureContent: settings.captureContent,
      origin: options.origin,
      toolFailed: (server, tool, result) => this.toolFailed(server, tool, result),
    };
  }

  /**
   * An observation of a front-door request, or undefined when nothing would use it (no metrics,
   * no ring, no tracer provider, logs above debug).
   */
  begin(request: IncomingRequest, keyName: string | undefined): RequestObservation | undefined {
    if (!this.metrics && !this.ring && !tracingOn() && !this.options.logger.isLevelEnabled("debug")) return undefined;
    return new RequestObservation(this.context, request, keyName);
  }

  /** An MCP request to an upstream server ended (reported by the MCP client pool). */
  mcpCall(report: McpCallReport): void {
    const metrics = this.metrics;
    metrics?.mcpClientDuration.observe(
      metrics.bound({ mcp_method_name: report.method, gen_ai_tool_name: report.tool ?? "", mcp_server: report.server, ...(report.error ? { error_type: report.error } : {}) }),
      report.ms / 1000,
    );
  }

  private toolFailed(server: string, tool: string, result: ToolResultBlock): void {
    let list = this.lastErrors.get(server);
    if (!list) {
      list = [];
      this.lastErrors.set(server, list);
    }
    const text = result.content.map((part) => (part.type === "text" ? part.text : `[${part.type}]`)).join("\n");
    list.unshift({ at: Date.now(), tool, message: excerpt(text, this.options.scrub, 500) });
    list.length = Math.min(list.length, LAST_ERRORS);
  }

  /** The servers page's data. */
  servers(): ServerView[] {
    return this.options.servers().map((server) => ({ ...server, lastErrors: this.lastErrors.get(server.name) ?? [] }));
  }

  /**
   * The state store with its failures counted (mcp_gateway_store_errors_total): a shared store
   * only (the memory store does not fail), and only with metrics on.
   */
  countStoreErrors(store: StateBackend): StateBackend {
    const metrics = this.metrics;
    if (!metrics || store.kind === "memory") return store;
    const counted = <T>(table: string, operation: string, run: () => Promise<T>): Promise<T> =>
      run().catch((error: unknown) => {
        metrics.storeErrors.inc({ table, operation });
        throw error;
      });
    const counters: Counters = {
      add: (key, amount, windowMs) => counted("counters", "add", () => store.counters.add(key, amount, windowMs)),
      peek: (key, windowMs) => counted("counters", "peek", () => store.counters.peek(key, windowMs)),
    };
    return {
      kind: store.kind,
      counters,
      health: () => store.health(),
      close: () => store.close(),
      table<T extends object>(namespace: string, limits: Parameters<StateBackend["table"]>[1]): StateStore<T> {
        const table = store.table<T>(namespace, limits);
        return {
          get: (key) => counted(namespace, "get", () => table.get(key)),
          set: (key, value) => counted(namespace, "set", () => table.set(key, value)),
          setJson: (key, json) => counted(namespace, "set", () => table.setJson(key, json)),
          delete: (key) => counted(namespace, "delete", () => table.delete(key)),
        };
      },
    };
  }

  /** A live stream of the web view is open: `close` ends it (at shutdown). */
  trackStream(close: () => void): () => void {
    this.streamClosers.add(close);
    return () => this.streamClosers.delete(close);
  }

  /** Ends the web view's live streams (before a graceful shutdown waits for open responses). */
  endStreams(): void {
    for (const close of [...this.streamClosers]) close();
    this.streamClosers.clear();
  }
}
