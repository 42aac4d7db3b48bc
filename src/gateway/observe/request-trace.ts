/**
 * The trace of one front-door request, made only when a tracer provider is registered: the door's
 * SERVER span (continuing the client's `traceparent`), a CLIENT span per model call with the GenAI
 * attributes (retries and fallbacks as its events), and an INTERNAL `execute_tool` span per tool
 * call, under which the MCP client's own span for the upstream request is made. Content
 * (messages, tool arguments and results) only when `content` is given: it redacts and bounds.
 */
import { context as otelContext, propagation, SpanKind, trace, type Attributes, type Context, type Span } from "@opentelemetry/api";
import type { ChatResult, GatewayError, ToolSet } from "../../core/index.ts";
import { errorType, failSpan, gatewayTracer, runInSpan } from "../../core/tracing.ts";
import type { LoopOutcome } from "../../loop/index.ts";
import type { ModelTarget } from "../routing/resilient-model.ts";
import { resultText, semconvMessages } from "./excerpt.ts";
import { ATTR, OPERATION } from "./names.ts";

/** The parts of the HTTP request an observation starts from. */
export interface IncomingRequest {
  id: string;
  method: string;
  path: string;
  door: string;
  header(name: string): string | undefined;
}

/** W3C trace context from the request's headers. */
const HEADER_GETTER = {
  keys: () => ["traceparent", "tracestate", "baggage"],
  get: (carrier: IncomingRequest, key: string) => carrier.header(key),
};

/** How the request ended, for its span. */
export interface TraceEnd {
  status: number;
  outcome: LoopOutcome | undefined;
  responseModel: string;
  provider: string;
  /** Set when the request failed: the error (or a stand-in) and its `error.type`. */
  failed?: { error: unknown; type: string };
  /** When the request ended (`performance.now()`), if not now: the spans end then. */
  at?: number;
}

export class RequestTrace {
  private readonly span: Span;
  /** The door span's context: the parent of every other span of the request. */
  readonly context: Context;
  private modelSpan: Span | undefined;

  constructor(
    request: IncomingRequest,
    private readonly content: ((value: unknown) => string) | undefined,
  ) {
    const parent = propagation.extract(otelContext.active(), request, HEADER_GETTER);
    const route = request.path;
    this.span = gatewayTracer().startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": request.method, "http.route": route, "url.path": route, [ATTR.GEN_AI_OPERATION_NAME]: OPERATION.CHAT, "mcp_gateway.request_id": request.id, "mcp_gateway.door": request.door },
      },
      parent,
    );
    this.context = trace.setSpan(parent, this.span);
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  routed(requested: string, first: ModelTarget, stream: boolean, request: { maxTokens?: number | undefined; temperature?: number | undefined; messages: readonly unknown[] }): void {
    const span = this.span;
    span.setAttributes({ [ATTR.GEN_AI_REQUEST_MODEL]: requested, [ATTR.GEN_AI_PROVIDER_NAME]: first.provider, [ATTR.GEN_AI_REQUEST_STREAM]: stream });
    if (request.maxTokens !== undefined) span.setAttribute(ATTR.GEN_AI_REQUEST_MAX_TOKENS, request.maxTokens);
    if (request.temperature !== undefined) span.setAttribute(ATTR.GEN_AI_REQUEST_TEMPERATURE, request.temperature);
    if (this.content) span.setAttribute(ATTR.GEN_AI_INPUT_MESSAGES, this.content(semconvMessages(request.messages as never)));
  }

  /** A model call begins (turn `turn`, to `target` when known). */
  modelStart(turn: number, target: ModelTarget | undefined, requested: string): void {
    this.modelSpan = gatewayTracer().startSpan(
      `${OPERATION.CHAT} ${target?.model ?? requested}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [ATTR.GEN_AI_OPERATION_NAME]: OPERATION.CHAT,
          ...(target ? { [ATTR.GEN_AI_PROVIDER_NAME]: target.provider, [ATTR.GEN_AI_REQUEST_MODEL]: target.model } : {}),
          "mcp_gateway.turn": turn,
        },
      },
      this.context,
    );
  }

  modelEnd(result: ChatResult, provider: string): void {
    const span = this.modelSpan;
    if (!span) return;
    const usage = result.usage;
    span.setAttributes({
      [ATTR.GEN_AI_PROVIDER_NAME]: provider,
      [ATTR.GEN_AI_RESPONSE_MODEL]: result.model,
      [ATTR.GEN_AI_RESPONSE_ID]: result.id,
      [ATTR.GEN_AI_RESPONSE_FINISH_REASONS]: [result.providerStopReason ?? result.stopReason],
      [ATTR.GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
      [ATTR.GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
    });
    if (this.content) span.setAttribute(ATTR.GEN_AI_OUTPUT_MESSAGES, this.content(semconvMessages([result.message])));
    span.end();
    this.modelSpan = undefined;
  }

  modelFailed(error: unknown, type: string): void {
    if (!this.modelSpan) return;
    failSpan(this.modelSpan, error, type);
    this.modelSpan.end();
    this.modelSpan = undefined;
  }

  retry(target: ModelTarget, attempt: number, delayMs: number, error: GatewayError): void {
    this.modelSpan?.addEvent("gen_ai.retry", { [ATTR.GEN_AI_PROVIDER_NAME]: target.provider, [ATTR.GEN_AI_REQUEST_MODEL]: target.model, "mcp_gateway.attempt": attempt, "mcp_gateway.delay_ms": delayMs, "error.type": errorType(error), "http.response.status_code": error.status });
  }

  fallback(from: ModelTarget, to: ModelTarget, error: GatewayError): void {
    this.modelSpan?.addEvent("gen_ai.fallback", { "mcp_gateway.from": `${from.provider}/${from.model}`, "mcp_gateway.to": `${to.provider}/${to.model}`, "error.type": errorType(error), "http.response.status_code": error.status });
  }

  /** The gateway's tools, each call in an `execute_tool` span. */
  tools(tools: ToolSet, origin: (name: string) => { server: string; tool: string } | undefined): ToolSet {
    const parent = this.context;
    const content = this.content;
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
          ...(content ? { [ATTR.GEN_AI_TOOL_CALL_ARGUMENTS]: content(call.arguments) } : {}),
        };
        const span = gatewayTracer().startSpan(`${OPERATION.EXECUTE_TOOL} ${call.name}`, { kind: SpanKind.INTERNAL, attributes }, parent);
        // Under this span, so the MCP request it makes is its child and carries its context.
        return runInSpan(
          span,
          async () => {
            const result = await tools.call(call, callContext);
            if (content) span.setAttribute(ATTR.GEN_AI_TOOL_CALL_RESULT, content(resultText(result)));
            return result;
          },
          parent,
        );
      },
    };
  }

  /** The request is over: the door span gets the outcome and ends (a model span still open too). */
  finish(end: TraceEnd): void {
    if (this.modelSpan) {
      this.modelSpan.end(end.at);
      this.modelSpan = undefined;
    }
    const span = this.span;
    span.setAttribute("http.response.status_code", end.status);
    const outcome = end.outcome;
    if (outcome) {
      span.setAttributes({
        [ATTR.GEN_AI_RESPONSE_MODEL]: end.responseModel,
        [ATTR.GEN_AI_USAGE_INPUT_TOKENS]: outcome.usage.inputTokens,
        [ATTR.GEN_AI_USAGE_OUTPUT_TOKENS]: outcome.usage.outputTokens,
        [ATTR.GEN_AI_RESPONSE_FINISH_REASONS]: [outcome.stopReason],
        "mcp_gateway.turns": outcome.turns,
        "mcp_gateway.tool_calls": outcome.tools.length,
        "mcp_gateway.answered_by": end.provider,
      });
      if (this.content) span.setAttribute(ATTR.GEN_AI_OUTPUT_MESSAGES, this.content(semconvMessages([outcome.message])));
    }
    if (end.failed) failSpan(span, end.failed.error, end.failed.type);
    span.end(end.at);
  }
}
