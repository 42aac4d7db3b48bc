/**
 * What the gateway sees of one request, reported to the metrics, the recent-requests ring (the
 * web view's timeline), the trace (request-trace.ts) and the debug log at once. The HTTP
 * middleware makes one per front-door request; the shared handler reports routing, the loop's
 * events come as the loop yields them (loop.ts), the door's SSE writer reports a stream's failure,
 * and the resilient model reports retries and fallbacks.
 * Only what is switched on costs anything: without the ring no timeline is built, without a
 * tracer provider no span is made, and the debug lines are skipped below `debug`.
 */
import type { Logger } from "pino";
import type { ChatResult, GatewayError, ToolCallBlock, ToolResultBlock, ToolSet } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import { errorType, tracingOn } from "../../core/tracing.ts";
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { ModelCallObserver, ModelTarget } from "../routing/resilient-model.ts";
import type { SseWriter } from "../shared/sse-pump.ts";
import { stepKeys } from "../state/hidden-steps.ts";
import { excerpt, resultText, type Scrub } from "./excerpt.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { OPERATION } from "./names.ts";
import { RequestTrace, type IncomingRequest } from "./request-trace.ts";
import { MAX_TIMELINE, type RequestRecord, type RequestRing, type TimelineEntry } from "./ring.ts";

export type { IncomingRequest };

/** What a request observation needs from its gateway. */
export interface ObservationContext {
  metrics?: GatewayMetrics;
  ring?: RequestRing;
  logger: Logger;
  scrub: Scrub;
  /** Prompts and tool arguments/results on spans (redacted). */
  captureContent: boolean;
  /** The server and original name of a gateway tool. */
  origin(name: string): { server: string; tool: string } | undefined;
  /** A tool call of this server failed (the servers page's last errors). */
  toolFailed?(server: string, tool: string, result: ToolResultBlock): void;
}



/** Excerpts of arguments and results in the timeline, and of content on spans. */
const EXCERPT_CHARS = 2_000;
const SPAN_CONTENT_CHARS = 64 * 1024;

export class RequestObservation implements ModelCallObserver {
  readonly record: RequestRecord | undefined;
  /** Set once the handler streams the answer: the stream's end, not the handler's return, finishes it. */
  streaming = false;
  private readonly started = performance.now();
  private readonly startedAt = Date.now();
  private finished = false;
  /** The request's spans, when a tracer provider is registered. */
  private readonly trace: RequestTrace | undefined;
  private modelStarted: number | undefined;
  private turn = 0;
  private target: ModelTarget | undefined;
  private requested = "";
  private provider = "";
  private responseModel = "";
  private firstToken = false;
  private outcome: LoopOutcome | undefined;
  private failure: { message: string; type: string } | undefined;
  /** When each tool call really started (performance.now()), by call id. */
  private readonly toolStartedAt = new Map<string, number>();
  /** Timeline entries of tool calls in flight, by call id. */
  private readonly toolEntries: Map<string, TimelineEntry> | undefined;

  constructor(
    private readonly ctx: ObservationContext,
    private readonly request: IncomingRequest,
    readonly keyName: string | undefined,
  ) {
    ctx.metrics?.started(request.door);
    if (tracingOn()) this.trace = new RequestTrace(request, ctx.captureContent ? (value) => excerpt(value, ctx.scrub, SPAN_CONTENT_CHARS) : undefined);
    if (ctx.ring) {
      this.toolEntries = new Map();
      this.record = ctx.ring.add({
        id: request.id,
        door: request.door,
        method: request.method,
        path: request.path,
        ...(keyName === undefined ? {} : { key: keyName }),
        state: "running",
        turns: 0,
        toolCalls: 0,
        clientToolCalls: 0,
        inputTokens: 0,
        outputTokens: 0,
        startedAt: this.startedAt,
        ...(this.trace ? { traceId: this.trace.traceId } : {}),
        timeline: [],
      });
    }
  }

  /** Ms since the request arrived. */
  private now(): number {
    return Math.round(performance.now() - this.started);
  }

  private changed(): void {
    if (this.record) this.ctx.ring!.changed(this.record);
  }

  private push(entry: TimelineEntry): void {
    const timeline = this.record?.timeline;
    if (!timeline || timeline.length >= MAX_TIMELINE) return;
    timeline.push(entry);
  }

  /** Routing is done: which model was asked for and who answers first. */
  routed(requested: string, first: ModelTarget, stream: boolean, request: { maxTokens?: number | undefined; temperature?: number | undefined; messages: readonly unknown[] }): void {
    this.requested = requested;
    this.target = first;
    this.provider = first.provider;
    if (this.record) {
      this.record.model = requested;
      this.record.provider = first.provider;
      this.record.stream = stream;
      this.changed();
    }
    this.trace?.routed(requested, first, stream, request);
  }

  /**
   * The door's SSE writer: the answer is streamed (the stream's end finishes the observation), and
   * a failure the pump writes into the stream after it started is this request's failure. The
   * events themselves are observed where the loop yields them (loop.ts).
   */
  writer(writer: SseWriter): SseWriter {
    this.streaming = true;
    return {
      open: () => writer.open(),
      event: (event) => writer.event(event),
      finish: (outcome) => writer.finish(outcome),
      fail: (error) => {
        this.failed(error);
        return writer.fail(error);
      },
      heartbeat: writer.heartbeat,
      ...(writer.result ? { result: (outcome: LoopOutcome) => writer.result!(outcome) } : {}),
      ...(writer.resultJson ? { resultJson: (outcome: LoopOutcome) => writer.resultJson!(outcome) } : {}),
    };
  }

  /**
   * The gateway's tools: each call timed where it runs (the timeline's), and in an `execute_tool`
   * span when this request is traced.
   */
  tools(tools: ToolSet): ToolSet {
    const timed = this.record ? this.timedTools(tools) : tools;
    return this.trace ? this.trace.tools(timed, this.ctx.origin) : timed;
  }

  /**
   * The loop's tool_start events reach the observation when its consumer pulls them (a stream's,
   * when the client has read what came before): the moment a call really starts is taken here.
   */
  private timedTools(tools: ToolSet): ToolSet {
    const startedAt = this.toolStartedAt;
    return {
      has: (name) => tools.has(name),
      definitions: (target) => tools.definitions(target),
      call(call, callContext) {
        startedAt.set(call.id, performance.now());
        return tools.call(call, callContext);
      },
    };
  }

  /** One event of the loop (whole answers: every event; streams: through the writer). */
  event(event: LoopEvent): void {
    switch (event.type) {
      case "turn_start":
        this.turnStart(event.turn);
        break;
      case "text_delta":
      case "reasoning_delta":
      case "client_tool_call_start":
        if (!this.firstToken) this.firstTokenSent();
        break;
      case "model_start":
        if (event.provider) {
          // The provider answering now (a fallback's, after the first failed): time to first token's.
          this.provider = event.provider;
          if (this.record) this.record.answeredBy = event.provider;
        }
        break;
      case "model_response":
        this.modelResponse(event.turn, event.result);
        break;
      case "tool_start":
        this.toolStart(event.turn, event.call);
        break;
      case "tool_end":
        this.toolEnd(event.turn, event.call, event.result, event.durationMs);
        break;
      case "done":
        this.done(event.outcome);
        break;
      case "error":
        this.failed(event.error);
        break;
      default:
        break;
    }
  }

  private turnStart(turn: number): void {
    this.turn = turn;
    const at = performance.now();
    this.modelStarted = at;
    if (this.record) {
      this.record.turns = turn;
      this.push({ kind: "model", turn, at: Math.round(at - this.started), ...(this.target ? { provider: this.target.provider, model: this.target.model } : {}) });
      this.changed();
    }
    this.trace?.modelStart(turn, this.target, this.requested);
  }

  private firstTokenSent(): void {
    this.firstToken = true;
    if (!this.streaming) return;
    this.ctx.metrics?.timeToFirstToken.observe(this.ctx.metrics.bound({ gen_ai_operation_name: OPERATION.CHAT, gen_ai_provider_name: this.provider, gen_ai_request_model: this.requested }), (performance.now() - this.started) / 1000);
  }

  /** The open model entry of the timeline (the last one, while its call runs). */
  private openModelEntry(): TimelineEntry | undefined {
    const timeline = this.record?.timeline;
    if (!timeline) return undefined;
    for (let i = timeline.length - 1; i >= 0; i--) {
      const entry = timeline[i]!;
      if (entry.kind === "model") return entry.ms === undefined ? entry : undefined;
    }
    return undefined;
  }

  private modelResponse(turn: number, result: ChatResult): void {
    const ended = performance.now();
    const seconds = this.modelStarted === undefined ? 0 : (ended - this.modelStarted) / 1000;
    const provider = result.provider ?? this.target?.provider ?? "";
    const requestModel = this.target?.model ?? this.requested;
    this.responseModel = result.model;
    this.provider = provider;
    const usage = result.usage;
    const metrics = this.ctx.metrics;
    if (metrics) {
      const labels = metrics.bound({ gen_ai_operation_name: OPERATION.CHAT, gen_ai_provider_name: provider, gen_ai_request_model: requestModel, gen_ai_response_model: result.model });
      metrics.clientDuration.observe(labels, seconds);
      metrics.tokenUsage.observe(extend(labels, { gen_ai_token_type: "input" }), usage.inputTokens);
      metrics.tokenUsage.observe(extend(labels, { gen_ai_token_type: "output" }), usage.outputTokens);
    }
    const entry = this.openModelEntry();
    if (entry && this.record) {
      entry.ms = Math.round(seconds * 1000);
      entry.provider = provider;
      entry.responseModel = result.model;
      entry.inputTokens = usage.inputTokens;
      entry.outputTokens = usage.outputTokens;
      entry.finish = result.providerStopReason ?? result.stopReason;
      this.record.answeredBy = provider;
      this.record.answeredModel = result.model;
      this.record.inputTokens += usage.inputTokens;
      this.record.outputTokens += usage.outputTokens;
      this.changed();
    }
    this.trace?.modelEnd(result, provider);
    this.modelStarted = undefined;
    const logger = this.ctx.logger;
    if (logger.isLevelEnabled("debug")) {
      logger.debug({ requestId: this.request.id, turn, provider, model: result.model, ms: Math.round(seconds * 1000), usage, stop: result.stopReason }, "model turn");
    }
  }

  private toolStart(turn: number, call: ToolCallBlock): void {
    if (!this.record) return;
    const where = this.ctx.origin(call.name);
    const entry: TimelineEntry = {
      kind: "tool",
      turn,
      at: Math.round((this.toolStartedAt.get(call.id) ?? performance.now()) - this.started),
      name: call.name,
      ...(where ? { server: where.server, tool: where.tool } : {}),
      args: excerpt(call.argumentsError === undefined ? call.arguments : call.rawArguments, this.ctx.scrub, EXCERPT_CHARS),
    };
    this.toolEntries!.set(call.id, entry);
    this.push(entry);
    this.changed();
  }

  private toolEnd(turn: number, call: ToolCallBlock, result: ToolResultBlock, durationMs: number): void {
    const where = this.ctx.origin(call.name);
    const server = where?.server ?? "";
    const outcome = result.isError ? "error" : "ok";
    const metrics = this.ctx.metrics;
    if (result.isError && where) this.ctx.toolFailed?.(where.server, where.tool, result);
    if (metrics) {
      metrics.toolCalls.inc(metrics.bound({ server, tool: where?.tool ?? call.name, outcome }));
      metrics.executeTool.observe(metrics.bound(result.isError ? { gen_ai_tool_name: call.name, mcp_server: server, error_type: "tool_error" } : { gen_ai_tool_name: call.name, mcp_server: server }), durationMs / 1000);
    }
    if (this.record) {
      const entry = this.toolEntries!.get(call.id);
      this.toolEntries!.delete(call.id);
      this.toolStartedAt.delete(call.id);
      if (entry) {
        entry.ms = durationMs;
        entry.isError = result.isError;
        entry.result = excerpt(resultText(result), this.ctx.scrub, EXCERPT_CHARS);
      }
      this.record.toolCalls++;
      this.changed();
    }
    const logger = this.ctx.logger;
    if (logger.isLevelEnabled("debug")) logger.debug({ requestId: this.request.id, turn, tool: call.name, server, ms: durationMs, outcome }, "tool call");
  }

  retry(target: ModelTarget, attempt: number, delayMs: number, error: GatewayError): void {
    this.ctx.metrics?.upstreamRetry(target.provider, error);
    this.push({ kind: "retry", at: this.now(), turn: this.turn, provider: target.provider, model: target.model, attempt, delayMs, status: error.status, message: this.ctx.scrub(error.message) });
    this.trace?.retry(target, attempt, delayMs, error);
    this.changed();
  }

  fallback(from: ModelTarget, to: ModelTarget, error: GatewayError): void {
    this.target = to;
    this.ctx.metrics?.fallbacks.inc({ from: from.provider, to: to.provider });
    this.push({ kind: "fallback", at: this.now(), turn: this.turn, from: `${from.provider}/${from.model}`, to: `${to.provider}/${to.model}`, status: error.status, message: this.ctx.scrub(error.message) });
    this.trace?.fallback(from, to, error);
    this.changed();
  }

  private done(outcome: LoopOutcome): void {
    this.outcome = outcome;
    if (outcome.clientToolCalls.length > 0) {
      this.ctx.metrics?.clientToolCalls.inc({ door: this.request.door }, outcome.clientToolCalls.length);
      if (this.record) {
        this.record.clientToolCalls = outcome.clientToolCalls.length;
        this.push({ kind: "client_tools", at: this.now(), turn: outcome.turns, detail: outcome.clientToolCalls.map((c) => c.name).join(", ") });
      }
    }
    // What the client does not see and the gateway keeps for its follow-up (as drive.ts's rememberHiddenSteps does).
    if (this.record) {
      let keys = outcome.stopReason === "client_tools" ? outcome.clientToolCalls.length : 0;
      if (outcome.tools.length > 0) for (const message of outcome.newMessages) if (message.role === "assistant") keys += stepKeys(message, { calls: false, signatures: true }).length;
      if (keys > 0) {
        const calls = [...new Set(outcome.tools.map((t) => t.call.name))];
        const what = calls.length > 0 ? `: ${outcome.tools.length} MCP call${outcome.tools.length === 1 ? "" : "s"} (${calls.join(", ")}) with their results` : ": the answer's own turn, with its provider data";
        this.push({ kind: "hidden_steps", at: this.now(), detail: `${outcome.newMessages.length} message${outcome.newMessages.length === 1 ? "" : "s"} kept for the client's follow-up${what}` });
      }
    }
  }

  /** A failure of the loop or the stream (before or after the answer started). */
  failed(error: unknown): void {
    if (this.failure) return;
    const message = this.ctx.scrub(error instanceof Error ? error.message : String(error));
    const type = errorType(error);
    this.failure = { message, type };
    const status = (error as { status?: unknown }).status;
    if (this.modelStarted !== undefined) {
      const seconds = (performance.now() - this.modelStarted) / 1000;
      const target = this.target;
      const metrics = this.ctx.metrics;
      metrics?.clientDuration.observe(metrics.bound({ gen_ai_operation_name: OPERATION.CHAT, gen_ai_provider_name: target?.provider ?? "", gen_ai_request_model: target?.model ?? this.requested, error_type: type }), seconds);
      const entry = this.openModelEntry();
      if (entry) {
        entry.ms = Math.round(seconds * 1000);
        entry.message = message;
      }
      this.trace?.modelFailed(error, type);
      this.modelStarted = undefined;
    }
    this.push({ kind: "error", at: this.now(), turn: this.turn, message, ...(typeof status === "number" ? { status } : {}) });
    this.changed();
  }

  /**
   * The request is over: answered (status), refused or failed. `error` is the gateway's answer
   * when it was an error; `at`, when it ended (`performance.now()`), for one recorded later.
   * Idempotent.
   */
  finish(status: number, error?: GatewayError, at = performance.now()): void {
    if (this.finished) return;
    this.finished = true;
    const seconds = (at - this.started) / 1000;
    const outcome = this.outcome;
    const door = this.request.door;
    const failed = status >= 400 || (this.failure !== undefined && !outcome);
    const type = error ? errorType(error) : this.failure?.type ?? (status >= 400 ? String(status) : undefined);
    const metrics = this.ctx.metrics;
    if (metrics) {
      metrics.ended(door);
      metrics.requests.inc(metrics.bound({ door, model: this.requested, provider: this.provider, status: String(status) }));
      if (outcome) metrics.turns.observe({ door }, outcome.turns);
      if (this.requested !== "" || outcome) {
        const labels: Record<string, string> = { gen_ai_operation_name: OPERATION.CHAT, gen_ai_provider_name: this.provider, gen_ai_request_model: this.requested };
        if (this.responseModel !== "") labels.gen_ai_response_model = this.responseModel;
        metrics.serverDuration.observe(metrics.bound(failed && type ? extend(labels, { error_type: type }) : labels), seconds);
      }
      if (error && isLimitRefusal(error)) metrics.limitRefusals.inc({ reason: error.code!, key: this.keyName ?? "" });
    }
    if (this.record) {
      const record = this.record;
      record.status = status;
      record.ms = Math.round(seconds * 1000);
      record.state = failed ? "failed" : "done";
      if (outcome) {
        record.stop = outcome.stopReason;
        record.turns = outcome.turns;
      }
      if (error || this.failure) record.error = error ? this.ctx.scrub(error.message) : this.failure!.message;
      if (error && !this.failure) this.push({ kind: "error", at: this.now(), message: record.error!, status });
      this.changed();
    }
    this.trace?.finish({
      status,
      outcome,
      responseModel: this.responseModel,
      provider: this.provider,
      ...(failed ? { failed: { error: error ?? new Error(this.failure?.message ?? `HTTP ${status}`), type: type ?? String(status) } } : {}),
      at,
    });
  }
}

/** Refusals by a limit: a key's rate limits, the concurrency cap, a key's models or servers. */
function isLimitRefusal(error: GatewayError): boolean {
  // An upstream's own 429 names its provider: that one is not the gateway's limit.
  if (error.provider !== undefined) return false;
  return error.code === "rate_limit_exceeded" || error.code === "too_many_concurrent_requests" || error.code === "model_not_allowed" || error.code === "mcp_server_not_allowed";
}
