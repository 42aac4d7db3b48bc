/**
 * The gateway's Prometheus metrics (prom-client), one registry per gateway. The GenAI and MCP
 * ones carry the OpenTelemetry semantic conventions' names and attributes in Prometheus
 * spelling (names.ts); the `mcp_gateway_*` ones are the gateway's own. Counters and histograms
 * are updated as requests go (those every request updates are keyed: ./keyed-metrics.ts); MCP
 * server states and the store's health are read at scrape time.
 * The process metrics (CPU, memory, event loop lag, GC) are collected once per process.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import { clusterScrape } from "./cluster-metrics.ts";
import { KeyedCounter, KeyedHistogram } from "./keyed-metrics.ts";
import { ATTR, label, METRIC, prometheusName } from "./names.ts";

/** What the gateway reads at scrape time. */
export interface ScrapeSources {
  servers(): { name: string; status: string; toolCount: number; restarts: number }[];
  store(): { kind: string; status: string };
}

const SERVER_STATES = ["starting", "ready", "failed", "disabled", "unavailable", "closed"] as const;

/** Buckets the semantic conventions advise. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const MCP_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const TURN_BUCKETS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50];

const OP = label(ATTR.GEN_AI_OPERATION_NAME);
const PROVIDER = label(ATTR.GEN_AI_PROVIDER_NAME);
const REQUEST_MODEL = label(ATTR.GEN_AI_REQUEST_MODEL);
const RESPONSE_MODEL = label(ATTR.GEN_AI_RESPONSE_MODEL);
const TOKEN_TYPE = label(ATTR.GEN_AI_TOKEN_TYPE);
const TOOL_NAME = label(ATTR.GEN_AI_TOOL_NAME);
const METHOD = label(ATTR.MCP_METHOD_NAME);
const ERROR_TYPE = "error_type";

/** Labels whose values come from clients, models or providers (model and tool names). */
const OPEN_LABELS = new Set(["model", "tool", REQUEST_MODEL, RESPONSE_MODEL, TOOL_NAME]);
/** How many distinct values an open label keeps before the rest count as `_other`. */
export const MAX_LABEL_VALUES = 500;
export const OTHER_LABEL_VALUE = "_other";

let processRegistry: Registry | undefined;

/** The process metrics, in a registry of their own shared by every gateway of the process. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class GatewayMetrics {
  readonly registry = new Registry();

  readonly requests = new KeyedCounter({
    name: "mcp_gateway_requests_total",
    help: "Requests by front door, requested model, answering provider and HTTP status",
    labelNames: ["door", "model", "provider", "status"],
    registers: [this.registry],
  });
  /**
   * Requests being handled, by door: counted here (`started`, `ended`) and read into the gauge at
   * scrape time, which spares each request two of prom-client's label lookups.
   */
  readonly #inFlight = new Map<string, number>();
  readonly inFlight = (() => {
    const inFlight = this.#inFlight;
    return new Gauge({
      name: "mcp_gateway_requests_in_flight",
      help: "Requests being handled, by front door",
      labelNames: ["door"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [door, count] of inFlight) this.set({ door }, count);
      },
    });
  })();
  readonly turns = new KeyedHistogram({ name: "mcp_gateway_loop_turns", help: "Model turns of the agent loop per request", labelNames: ["door"], buckets: TURN_BUCKETS, registers: [this.registry] });
  readonly toolCalls = new KeyedCounter({
    name: "mcp_gateway_tool_calls_total",
    help: "MCP tool calls run by the gateway's agent loop, by server, tool and outcome (ok, error)",
    labelNames: ["server", "tool", "outcome"],
    registers: [this.registry],
  });
  readonly clientToolCalls = new KeyedCounter({
    name: "mcp_gateway_client_tool_calls_total",
    help: "Tool calls handed back to the client (its own tools), by front door",
    labelNames: ["door"],
    registers: [this.registry],
  });
  readonly retries = new Counter({ name: "mcp_gateway_upstream_retries_total", help: "Upstream model calls retried, by provider and reason (status or error code)", labelNames: ["provider", "reason"], registers: [this.registry] });
  readonly fallbacks = new Counter({ name: "mcp_gateway_upstream_fallbacks_total", help: "Model calls handed to the next candidate (fallback or deployment), by provider", labelNames: ["from", "to"], registers: [this.registry] });
  readonly limitRefusals = new Counter({
    name: "mcp_gateway_limit_refusals_total",
    help: "Requests refused by a limit: key rate limits (rate_limit_exceeded), the concurrency cap (too_many_concurrent_requests), a key's models or servers",
    labelNames: ["reason", "key"],
    registers: [this.registry],
  });
  readonly storeErrors = new Counter({ name: "mcp_gateway_store_errors_total", help: "Failed operations of the state store, by table and operation", labelNames: ["table", "operation"], registers: [this.registry] });

  readonly tokenUsage = new KeyedHistogram({
    name: prometheusName(METRIC.GEN_AI_CLIENT_TOKEN_USAGE),
    help: "Tokens used per upstream model call (input, output), as the providers report them",
    labelNames: [OP, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, TOKEN_TYPE],
    buckets: TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly clientDuration = new KeyedHistogram({
    name: prometheusName(METRIC.GEN_AI_CLIENT_OPERATION_DURATION, "seconds"),
    help: "Duration of upstream model calls (retries and fallbacks included)",
    labelNames: [OP, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, ERROR_TYPE],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly serverDuration = new KeyedHistogram({
    name: prometheusName(METRIC.GEN_AI_SERVER_REQUEST_DURATION, "seconds"),
    help: "Duration of chat requests served by the gateway, every turn and tool call included",
    labelNames: [OP, PROVIDER, REQUEST_MODEL, RESPONSE_MODEL, ERROR_TYPE],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly timeToFirstToken = new KeyedHistogram({
    name: prometheusName(METRIC.GEN_AI_SERVER_TIME_TO_FIRST_TOKEN, "seconds"),
    help: "Time from a streamed request's arrival to its first token sent to the client",
    labelNames: [OP, PROVIDER, REQUEST_MODEL],
    buckets: TTFT_BUCKETS,
    registers: [this.registry],
  });
  readonly executeTool = new KeyedHistogram({
    name: "gen_ai_execute_tool_duration_seconds",
    help: "Duration of tool executions by the agent loop (gen_ai.operation.name execute_tool)",
    labelNames: [TOOL_NAME, "mcp_server", ERROR_TYPE],
    buckets: MCP_BUCKETS,
    registers: [this.registry],
  });
  readonly mcpClientDuration = new KeyedHistogram({
    name: prometheusName(METRIC.MCP_CLIENT_OPERATION_DURATION, "seconds"),
    help: "Duration of MCP requests to the upstream servers",
    labelNames: [METHOD, TOOL_NAME, "mcp_server", ERROR_TYPE],
    buckets: MCP_BUCKETS,
    registers: [this.registry],
  });

  readonly mcpServerDuration = new KeyedHistogram({
    name: prometheusName(METRIC.MCP_SERVER_OPERATION_DURATION, "seconds"),
    help: "Duration of the tools/call requests MCP clients send the gateway (/mcp and stdio; the chat tool included)",
    labelNames: [METHOD, TOOL_NAME, ERROR_TYPE],
    buckets: MCP_BUCKETS,
    registers: [this.registry],
  });

  /** The values each open label has taken so far. */
  private readonly labelValues = new Map<string, Set<string>>();

  /** Under `serve --workers N`: every worker's metrics, gathered by the primary. */
  private readonly clusterScrape: (() => Promise<string>) | undefined;

  constructor(sources: ScrapeSources) {
    this.clusterScrape = clusterScrape([this.registry, processMetrics()]);
    new Gauge({
      name: "mcp_gateway_mcp_server_state",
      help: "1 for the state each MCP server is in (starting, ready, failed, disabled, unavailable, closed); under --workers, how many workers see it in that state",
      labelNames: ["server", "state"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const server of sources.servers()) for (const state of SERVER_STATES) this.set({ server: server.name, state }, server.status === state ? 1 : 0);
      },
    });
    new Gauge({
      name: "mcp_gateway_mcp_server_tools",
      help: "Tools each MCP server lists",
      labelNames: ["server"],
      // Under --workers each worker has the server: the most any of them lists, not their sum.
      aggregator: "max",
      registers: [this.registry],
      collect() {
        this.reset();
        for (const server of sources.servers()) this.set({ server: server.name }, server.toolCount);
      },
    });
    new Counter({
      name: "mcp_gateway_mcp_server_restarts_total",
      help: "Restarts of each MCP server after it exited or its connection closed",
      labelNames: ["server"],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const server of sources.servers()) this.inc({ server: server.name }, server.restarts);
      },
    });
    new Gauge({
      name: "mcp_gateway_store_up",
      help: "1 while the state store is reachable",
      labelNames: ["kind"],
      // Under --workers: 1 only when every worker reaches it.
      aggregator: "min",
      registers: [this.registry],
      collect() {
        this.reset();
        const store = sources.store();
        this.set({ kind: store.kind }, store.status === "ok" ? 1 : 0);
      },
    });
  }

  /**
   * `labels` with each open label's value kept only while that label has fewer than
   * MAX_LABEL_VALUES distinct values, else `_other`: a client can send any model name (`p/<any>`)
   * or tool name, and every new value would add series to the registry for good.
   */
  bound<T extends Record<string, string>>(labels: T): T {
    let out: Record<string, string> | undefined;
    // for…in: Object.entries would make an array per label on every update.
    for (const name in labels) {
      if (!OPEN_LABELS.has(name)) continue;
      const value = labels[name]!;
      let seen = this.labelValues.get(name);
      if (!seen) this.labelValues.set(name, (seen = new Set()));
      if (seen.has(value)) continue;
      if (seen.size < MAX_LABEL_VALUES) seen.add(value);
      else (out ??= { ...labels })[name] = OTHER_LABEL_VALUE;
    }
    return (out ?? labels) as T;
  }

  /** A request of `door` is being handled (the in-flight gauge). */
  started(door: string): void {
    this.#inFlight.set(door, (this.#inFlight.get(door) ?? 0) + 1);
  }

  ended(door: string): void {
    this.#inFlight.set(door, (this.#inFlight.get(door) ?? 1) - 1);
  }

  /** An upstream call retried: by provider, and the status (429, 5xx) or error code that caused it. */
  upstreamRetry(provider: string, error: { status: number; code?: string | undefined }): void {
    this.retries.inc({ provider, reason: error.status >= 400 && error.status !== 502 ? String(error.status) : (error.code ?? String(error.status)) });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text: the gateway's metrics, then the process's. */
  async scrape(): Promise<string> {
    if (this.clusterScrape) return this.clusterScrape();
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }
}
