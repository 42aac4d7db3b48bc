/**
 * What the gateway sees of one request, reported to the metrics, the recent-requests ring (the
 * web view's timeline), the trace and the debug log at once. The HTTP middleware makes one per
 * front-door request; the shared handler reports routing, the loop's events (whole answers) or
 * wraps the door's SSE writer (streams), and the resilient model reports retries and fallbacks.
 * Only what is switched on costs anything: without the ring no timeline is built, without a
 * tracer provider no span is made, and the debug lines are skipped below `debug`.
 */
import { context as otelContext, propagation, SpanKind, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import type { Logger } from "pino";
import type { ChatResult, GatewayError, ToolCallBlock, ToolResultBlock, ToolSet } from "../../core/index.ts";
import { errorType, failSpan, gatewayTracer, tracingOn } from "../../core/tracing.ts";
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { ModelCallObserver, ModelTarget } from "../routing/resilient-model.ts";
import type { SseWriter } from "../shared/sse-pump.ts";
import { stepKeys } from "../state/hidden-steps.ts";
import { cut, excerpt, redactedJson, resultText, semconvMessages, type Scrub } from "./excerpt.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { ATTR, OPERATION } from "./names.ts";
import { MAX_TIMELINE, type RequestRecord, type RequestRing, type TimelineEntry } from "./ring.ts";

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

/** The parts of the HTTP request an observation starts from. */
export interface IncomingRequest {
  id: string;
  method: string;
  path: string;
  door: string;
  header(name: string): string | undefined;
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
  private span: Span | undefined;
  private traceContext: Context | undefined;
  private modelSpan: Span | undefined;
  private modelStarted: number | undefined;
  private turn = 0;
  private target: ModelTarget | undefined;
  private requested = "";
  private provider = "";
  private responseModel = "";
  private firstToken = false;
  private outcome: LoopOutcome | undefined;
  private failure: { message: string; type: string } | undefined;
  /** Timeline entries of tool calls in flight, by call id. */
  private readonly toolEntries: Map<string, TimelineEntry> | undefined;

  constructor(
    private readonly ctx: ObservationContext,
    private readonly request: IncomingRequest,
    readonly keyName: string | undefined,
  ) {
    ctx.metrics?.inFlight.inc({ door: request.door });
    if (tracingOn()) this.startSpan();
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
        ...(this.span ? { traceId: this.span.spanContext().traceId } : {}),
        timeline: [],
      });
    }
  }

  /** The front-door span: a SERVER span continuing the client's trace when it sent a `traceparent`. */
  private startSpan(): void {
    const parent = propagation.extract(otelContext.active(), this.request, HEADER_GETTER);
    const route = this.request.path;
    this.span = gatewayTracer().startSpan(
      `${this.request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": this.request.method, "http.route": route, "url.path": route, [ATTR.GEN_AI_OPERATION_NAME]: OPERATION.CHAT, "mcp_gateway.request_id": this.request.id, "mcp_gateway.door": this.request.door },
      },
      parent,
    );
    this.traceContext = trace.setSpan(parent, this.span);
  }

  /** The trace context of this request (its front-door span), to run work under. */
  get context(): Context | undefined {
    return this.traceContext;
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
    const span = this.span;
    if (span) {
      span.setAttributes({ [ATTR.GEN_AI_REQUEST_MODEL]: requested, [ATTR.GEN_AI_PROVIDER_NAME]: first.provider, [ATTR.GEN_AI_REQUEST_STREAM]: stream });
      if (request.maxTokens !== undefined) span.setAttribute(ATTR.GEN_AI_REQUEST_MAX_TOKENS, request.maxTokens);
      if (request.temperature !== undefined) span.setAttribute(ATTR.GEN_AI_REQUEST_TEMPERATURE, request.temperature);
      if (this.ctx.captureContent) span.setAttribute(ATTR.GEN_AI_INPUT_MESSAGES, this.content(semconvMessages(request.messages as never)));
    }
  }

  /** Content for a span attribute: redacted, scrubbed, bounded. */
  private content(value: unknown): string {
    return excerpt(value, this.ctx.scrub, SPAN_CONTENT_CHARS);
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
    };
  }

  /** The gateway's tools, each call in an `execute_tool` span when this request is traced. */
  tools(tools: ToolSet): ToolSet {
    const parent = this.traceContext;
    if (!parent) return tools;
    const capture = this.ctx.captureContent;
    const origin = this.ctx.origin;
    const content = (value: unknown) => this.content(value);
    return {
      has: (name) => tools.has(name),
      definitions: (target) => tools.definitions(target),
      async call(call, callContext) {
        const where = origin(call.name);
        const attributes: Attributes = {
          [ATTR.GEN_AI_OPERATION_NAME]: OPERATION.EXECUTE_TOOL,
          [ATTR.GEN_AI_TOOL_NAME]: call.name,
          [ATTR.GEN_AI_TOOL_CALL_ID]: call.id,
          [ATTR.GEN_AI_TOOL_TYPE]: "function",
          ...(where ? { "mcp_gateway.mcp_server": where.server, "mcp_gateway.mcp_tool": where.tool } : {}),
          ...(capture ? { [ATTR.GEN_AI_TOOL_CALL_ARGUMENTS]: content(call.arguments) } : {}),
        };
        const span = gatewayTracer().startSpan(`${OPERATION.EXECUTE_TOOL} ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
        try {
          // Under this span, so the MCP request it makes is its child and carries its context.
          const result = await otelContext.with(trace.setSpan(parent, span), () => tools.call(call, callContext));
          if (capture) span.setAttribute(ATTR.GEN_AI_TOOL_CALL_RESULT, content(resultText(result)));
          if (result.isError) failSpan(span, new Error(cut(resultText(result), 500)), "tool_error");
          return result;
        } catch (error) {
          failSpan(span, error);
          throw error;
        } finally {
          span.end();
        }
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
        if (event.provider && this.record) {
          this.record.answeredBy = event.provider;
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
    if (this.traceContext) {
      const target = this.target;
      this.modelSpan = gatewayTracer().startSpan(
        `${OPERATION.CHAT} ${target?.model ?? this.requested}`,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [ATTR.GEN_AI_OPERATION_NAME]: OPERATION.CHAT,
            ...(target ? { [ATTR.GEN_AI_PROVIDER_NAME]: target.provider, [ATTR.GEN_AI_REQUEST_MODEL]: target.model } : {}),
            "mcp_gateway.turn": turn,
          },
        },
        this.traceContext,
      );
    }
  }

  private firstTokenSent(): void {
    this.firstToken = true;
    if (!this.streaming) return;
    this.ctx.metrics?.timeToFirstToken.observe({ gen_ai_operation_name: OPERATION.CHAT, gen_ai_request_model: this.requested }, (performance.now() - this.started) / 1000);
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
      const labels = { gen_ai_operation_name: OPERATION.CHAT, gen_ai_provider_name: provider, gen_ai_request_model: requestModel, gen_ai_response_model: result.model };
      metrics.clientDuration.observe(labels, seconds);
      metrics.tokenUsage.observe({ ...labels, gen_ai_token_type: "input" }, usage.inputTokens);
      metrics.tokenUsage.observe({ ...labels, gen_ai_token_type: "output" }, usage.outputTokens);
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
    const span = this.modelSpan;
    if (span) {
      span.setAttributes({
        [ATTR.GEN_AI_PROVIDER_NAME]: provider,
        [ATTR.GEN_AI_RESPONSE_MODEL]: result.model,
        [ATTR.GEN_AI_RESPONSE_ID]: result.id,
        [ATTR.GEN_AI_RESPONSE_FINISH_REASONS]: [result.providerStopReason ?? result.stopReason],
        [ATTR.GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
        [ATTR.GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
      });
      if (this.ctx.captureContent) span.setAttribute(ATTR.GEN_AI_OUTPUT_MESSAGES, this.content(semconvMessages([result.message])));
      span.end();
      this.modelSpan = undefined;
    }
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
      at: this.now(),
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
      metrics.toolCalls.inc({ server, tool: where?.tool ?? call.name, outcome });
      metrics.executeTool.observe(result.isError ? { gen_ai_tool_name: call.name, mcp_server: server, error_type: "tool_error" } : { gen_ai_tool_name: call.name, mcp_server: server }, durationMs / 1000);
    }
    if (this.record) {
      const entry = this.toolEntries!.get(call.id);
      this.toolEntries!.delete(call.id);
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
    this.modelSpan?.addEvent("gen_ai.retry", { [ATTR.GEN_AI_PROVIDER_NAME]: target.provider, [ATTR.GEN_AI_REQUEST_MODEL]: target.model, "mcp_gateway.attempt": attempt, "mcp_gateway.delay_ms": delayMs, "error.type": errorType(error), "http.response.status_code": error.status });
    this.changed();
  }

  fallback(from: ModelTarget, to: ModelTarget, error: GatewayError): void {
    this.target = to;
    this.ctx.metrics?.fallbacks.inc({ from: from.provider, to: to.provider });
    this.push({ kind: "fallback", at: this.now(), turn: this.turn, from: `${from.provider}/${from.model}`, to: `${to.provider}/${to.model}`, status: error.status, message: this.ctx.scrub(error.message) });
    this.modelSpan?.addEvent("gen_ai.fallback", { "mcp_gateway.from": `${from.provider}/${from.model}`, "mcp_gateway.to": `${to.provider}/${to.model}`, "error.type": errorType(error), "http.response.status_code": error.status });
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
      this.ctx.metrics?.clientDuration.observe({ gen_ai_operation_name: OPERATION.CHAT, gen_ai_provider_name: target?.provider ?? "", gen_ai_request_model: target?.model ?? this.requested, error_type: type }, seconds);
      const entry = this.openModelEntry();
      if (entry) {
        entry.ms = Math.round(seconds * 1000);
        entry.message = message;
      }
      if (this.modelSpan) {
        failSpan(this.modelSpan, error, type);
        this.modelSpan.end();
        this.modelSpan = undefined;
      }
      this.modelStarted = undefined;
    }
    this.push({ kind: "error", at: this.now(), turn: this.turn, message, ...(typeof status === "number" ? { status } : {}) });
    this.changed();
  }

  /**
   * The request is over: answered (status), refused or failed. `error` is the gateway's answer
   * when it was an error. Idempotent.
   */
  finish(status: number, error?: GatewayError): void {
    if (this.finished) return;
    this.finished = true;
    const seconds = (performance.now() - this.started) / 1000;
    const outcome = this.outcome;
    const door = this.request.door;
    const failed = status >= 400 || (this.failure !== undefined && !outcome);
    const type = error ? errorType(error) : this.failure?.type ?? (status >= 400 ? String(status) : undefined);
    const metrics = this.ctx.metrics;
    if (metrics) {
      metrics.inFlight.dec({ door });
      metrics.requests.inc({ door, model: this.requested, provider: this.provider, status: String(status) });
      if (outcome) metrics.turns.observe({ door }, outcome.turns);
      if (this.requested !== "" || outcome) {
        const labels: Record<string, string> = { gen_ai_operation_name: OPERATION.CHAT, gen_ai_request_model: this.requested };
        if (this.responseModel !== "") labels.gen_ai_response_model = this.responseModel;
        metrics.serverDuration.observe(failed && type ? { ...labels, error_type: type } : labels, seconds);
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
    const span = this.span;
    if (span) {
      if (this.modelSpan) {
        this.modelSpan.end();
        this.modelSpan = undefined;
      }
      span.setAttribute("http.response.status_code", status);
      if (outcome) {
        span.setAttributes({
          [ATTR.GEN_AI_RESPONSE_MODEL]: this.responseModel,
          [ATTR.GEN_AI_USAGE_INPUT_TOKENS]: outcome.usage.inputTokens,
          [ATTR.GEN_AI_USAGE_OUTPUT_TOKENS]: outcome.usage.outputTokens,
          [ATTR.GEN_AI_RESPONSE_FINISH_REASONS]: [outcome.stopReason],
          "mcp_gateway.turns": outcome.turns,
          "mcp_gateway.tool_calls": outcome.tools.length,
          "mcp_gateway.answered_by": this.provider,
        });
        if (this.ctx.captureContent) span.setAttribute(ATTR.GEN_AI_OUTPUT_MESSAGES, this.content(semconvMessages([outcome.message])));
      }
      if (failed) failSpan(span, error ?? new Error(this.failure?.message ?? `HTTP ${status}`), type ?? String(status));
      span.end();
    }
  }
}

/** Refusals by a limit: a key's rate limits, the concurrency cap, a key's models or servers. */
function isLimitRefusal(error: GatewayError): boolean {
  // An upstream's own 429 names its provider: that one is not the gateway's limit.
  if (error.provider !== undefined) return false;
  return error.code === "rate_limit_exceeded" || error.code === "too_many_concurrent_requests" || error.code === "model_not_allowed" || error.code === "mcp_server_not_allowed";
}

/** W3C trace context from the request's headers. */
const HEADER_GETTER = {
  keys: () => ["traceparent", "tracestate", "baggage"],
  get: (carrier: IncomingRequest, key: string) => carrier.header(key),
};

/** A record's timeline as text (tests and logs). */
export function describeTimeline(record: RequestRecord): string {
  return record.timeline.map((e) => `${e.at}ms ${e.kind}${e.name ? ` ${e.name}` : ""}${e.provider ? ` ${e.provider}` : ""}${e.message ? `: ${e.message}` : ""}`).join("\n");
}

export { redactedJson };
