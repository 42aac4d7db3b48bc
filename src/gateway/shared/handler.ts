/**
 * The one HTTP handler behind every front door: body read within limits, a deadline for the
 * whole request, the client's disconnect cancelling the work, routing, the loop, the answer
 * (whole or streamed) and one log line. The door only reads its request and writes its answer.
 */
import { createHash } from "node:crypto";
import type { Context } from "hono";
import { GatewayError, toGatewayError } from "../../core/index.ts";
import { inCheckPhase } from "../../core/check-phase.ts";
import type { Logger } from "../../core/logger.ts";
import { callerKey } from "../http/auth.ts";
import { abortWhenClientGone } from "../http/client-gone.ts";
import { answerWithIds, requestIdOf } from "../http/request-id.ts";
import { directSseResponse } from "../http/direct-sse.ts";
import { errorResponse } from "../http/errors.ts";
import { jsonShapeProblem, type JsonLimits } from "../http/limits.ts";
import { readBodyText } from "../http/read-body.ts";
import type { TraceCarrier } from "../../core/request-context.ts";
import type { LoopOutcome } from "../../loop/index.ts";
import type { ChatDeps } from "./deps.ts";
import type { Door, ParsedRequest, PreparedRequest } from "./door.ts";
import { rememberHiddenSteps, runWhole, startLoop } from "./drive.ts";
import { checkModel, checkSelection, keyTools, policyOf } from "./keys.ts";
import { takeLoopOptions } from "./loop-options.ts";
import { addLoopReport } from "./loop-setup.ts";
import { prepareRequest } from "./prepare.ts";
import { startSse } from "./sse-frames.ts";
import { streamResponse } from "./sse-pump.ts";
import { observationOf } from "../observe/routes.ts";

/** A request body's JSON value: never a Promise, so `instanceof Promise` tells a value from a wait. */
export type JsonBody = string | number | boolean | null | object;

/**
 * The request's JSON body, checked against the limits; at once (not a Promise) when the body was
 * already whole in memory, as a small request's is.
 */
export function readJson(c: Context, limits: JsonLimits & { maxBodyBytes: number }): JsonBody | Promise<JsonBody> {
  const text = readBodyText(c, limits.maxBodyBytes);
  return typeof text === "string" ? parseJson(text, limits) : text.then((t) => parseJson(t, limits));
}

function parseJson(text: string, limits: JsonLimits): JsonBody {
  let json: JsonBody;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw GatewayError.invalidRequest(`The body is not valid JSON: ${(error as Error).message}`, undefined, "invalid_json");
  }
  const problem = jsonShapeProblem(json, limits);
  if (problem) throw GatewayError.invalidRequest(`Invalid request: ${problem.path || "body"}: ${problem.message}`, problem.path || undefined, "request_too_complex");
  return json;
}

const TENANT = Symbol("tenant");

/** A stable, non-reversible id of the caller's key (the key itself is never kept). */
export function tenantOf(c: Context): string {
  // Once per request: the Responses door's parse asks too, and a key's digest is a hash.
  const known = c.get(TENANT as never) as string | undefined;
  if (known !== undefined) return known;
  const key = callerKey(c);
  const tenant = key === undefined ? "anonymous" : createHash("sha256").update(key).digest("base64url").slice(0, 16);
  c.set(TENANT as never, tenant as never);
  return tenant;
}

/**
 * The request's header lookup for its loop options (`x-mcp-gateway-*`: six names, which most
 * requests send none of): on the gateway's Node server, one pass over the raw header names
 * decides whether any is there, instead of six lookups (each a name check and a search).
 */
function optionHeaders(c: Context): (name: string) => string | undefined {
  const raw = (c.env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders;
  if (raw) {
    let any = false;
    for (let i = 0; i < raw.length && !any; i += 2) any = raw[i]!.length > 14 && raw[i]!.toLowerCase().startsWith("x-mcp-gateway-");
    if (!any) return () => undefined;
  }
  return (name) => c.req.header(name);
}

/** The message of an error and of its cause (internal errors hide details from clients, not logs). */
function describeFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error ? error.cause : undefined;
  return cause === undefined ? message : `${message}: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`;
}

interface RequestFields {
  requestId: string;
  model: string;
  provider: string;
  stream: boolean;
}

/**
 * The request's log line: the request, who answered in the end (after a fallback, not the alias's
 * first provider), how long it took and how it ended. Built by assignment in the fields' order
 * (spreads would cost several µs on Node 20: src/core/extend.ts).
 */
function requestLine(fields: RequestFields, outcome: LoopOutcome | undefined, started: number, whole: boolean): Record<string, unknown> {
  const line: Record<string, unknown> = { requestId: fields.requestId, model: fields.model, provider: fields.provider, stream: fields.stream };
  const last = outcome?.last;
  if (last?.provider) line.answeredBy = last.provider;
  if (last) line.answeredModel = last.model;
  line.ms = Math.round(performance.now() - started);
  line.stop = outcome?.stopReason ?? "aborted_or_failed";
  line.turns = outcome?.turns;
  if (whole) line.tools = outcome?.tools.length;
  line.usage = outcome?.usage;
  return addLoopReport(outcome, line);
}

/**
 * The request's access line, written after its answer (src/core/check-phase.ts says why); the
 * fields are taken now (the time it took is the handler's).
 */
function logRequest(log: Logger, line: Record<string, unknown>, message: string): void {
  if (log.isLevelEnabled("info")) inCheckPhase(() => log.info(line, message));
}

/** `x-mcp-gateway-warning`: what was left out for the answering provider, never silently. */
function warningHeaders(prepared: PreparedRequest): Record<string, string> {
  return prepared.warnings.length === 0 ? {} : { "x-mcp-gateway-warning": headerSafe(prepared.warnings.join("; ")) };
}

/** A header value from text a request chose (tool and block types): printable ASCII only, the rest percent-encoded. */
export function headerSafe(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, (char) => encodeURIComponent(char));
}

/** The client's trace context, which the request's MCP calls pass on while the gateway does not trace (set by the app: src/gateway/http/app.ts). */
function traceOf(c: Context): { trace?: TraceCarrier } {
  const trace = c.get("traceCarrier" as never) as TraceCarrier | undefined;
  return trace ? { trace } : {};
}

export function doorHandler<P extends ParsedRequest>(door: Door<P>, deps: ChatDeps) {
  return async (c: Context): Promise<Response> => {
    const requestId = requestIdOf(c)!;
    // The request id goes into each line's fields: a child logger per request costs more.
    const log = deps.logger;
    const started = performance.now();
    // Aborted when the client disconnects: cancels the upstream call and pending MCP calls.
    const { controller, stopWatching } = abortWhenClientGone(c);
    const limits = deps.config.gateway;
    // The whole request (every turn and tool call) has a deadline.
    const deadline = setTimeout(
      () => controller.abort(new GatewayError(`The request took longer than ${limits.requestTimeoutMs} ms`, { status: 504, type: "timeout_error", code: "request_timeout" })),
      limits.requestTimeoutMs,
    );
    deadline.unref();
    try {
      // No await for a body that is already whole: a Promise and a microtask fewer per request.
      const reading = readJson(c, limits);
      const json = reading instanceof Promise ? await reading : reading;
      // The request's loop options (`mcp_gateway`, x-mcp-gateway-*) never travel on to a provider.
      const loopOptions = takeLoopOptions(json, optionHeaders(c));
      // Chat Completions and Messages parse at once: an await of their answer would still cost a tick.
      const parsing = door.parse(json, c);
      const parsed = parsing instanceof Promise ? await parsing : parsing;
      parsed.loop = loopOptions;
      // What the key may use comes first: a model or server outside it is a 403.
      const key = policyOf(deps.config, callerKey(c));
      checkModel(key, parsed.model);
      const selection = c.req.header("x-mcp-servers");
      checkSelection(key, selection, parsed.mcpServers);
      const preparing = prepareRequest(parsed, selection, tenantOf(c), key?.mcpServers ? { ...deps, tools: keyTools(deps.tools, key) } : deps, key, requestId);
      const prepared = preparing instanceof Promise ? await preparing : preparing;
      // Metrics, the web view's timeline and the trace follow the request from here (when on).
      const observation = observationOf(c);
      const first = prepared.model.candidates[0];
      observation?.routed(prepared.model.requested, { provider: first?.provider.name ?? prepared.model.provider.name, model: first?.modelId ?? prepared.model.modelId }, parsed.stream, prepared.request);
      // Each await below only when there is something to wait for: an await of undefined is still a
      // promise and a microtask on every request.
      const fitting = door.fit?.(prepared, controller.signal);
      if (fitting) await fitting;
      if (prepared.warnings.length > 0) log.warn({ requestId, provider: prepared.model.provider.name, warnings: prepared.warnings }, `${door.label}: left out for this provider`);
      const run = { requestId, ...(observation ? { observation } : {}), ...traceOf(c) };
      const logFields: RequestFields = { requestId, model: prepared.model.requested, provider: prepared.model.provider.name, stream: parsed.stream };
      const headers = { "x-request-id": requestId, ...warningHeaders(prepared) };
      if (parsed.stream) {
        const writer = observation ? observation.writer(door.writer(prepared)) : door.writer(prepared);
        const frames = await startSse({
          loop: startLoop(prepared, deps, controller.signal, run),
          writer,
          controller,
          heartbeatMs: deps.heartbeatMs ?? 10_000,
          ...(observation ? { observer: observation } : {}),
          // The key's usage, then the hidden steps, then the door's store: each waited for only
          // when there is something to wait for (an answer with none ends a step sooner).
          beforeFinish: (outcome) => {
            const store = () => (writer.result ? door.remember?.(prepared, outcome, writer.result(outcome), writer.resultJson?.(outcome)) : undefined);
            const remember = () => {
              const remembering = rememberHiddenSteps(outcome, deps, prepared.tenant, requestId);
              return remembering ? remembering.then(store) : store();
            };
            const recording = deps.limits?.record(key, outcome.usage);
            return recording ? recording.then(remember) : remember();
          },
          ...(deps.scrub ? { scrub: deps.scrub } : {}),
        });
        void frames.finished.then((outcome) => {
          clearTimeout(deadline);
          stopWatching();
          observation?.finish(200);
          logRequest(log, requestLine(logFields, outcome, started, false), `${door.label} streamed`);
        });
        // Written to Node's ServerResponse by our server once the middlewares are done with the
        // head; a web stream when the app runs without it (src/gateway/http/direct-sse.ts).
        return directSseResponse(c, frames, headers) ?? streamResponse(frames, headers);
      }
      const outcome = await runWhole(prepared, deps, controller.signal, run);
      // Counted before the answer leaves, so the key's next request sees these tokens.
      const recording = deps.limits?.record(key, outcome.usage);
      if (recording) await recording;
      const remembering = rememberHiddenSteps(outcome, deps, prepared.tenant, requestId);
      if (remembering) await remembering;
      const answer = door.respond(outcome, prepared);
      // Serialized once: the client gets this text, and a door that stores its answers stores it.
      const answerJson = JSON.stringify(answer.body);
      const storing = door.remember?.(prepared, outcome, answer.body, answerJson);
      if (storing) await storing;
      clearTimeout(deadline);
      stopWatching();
      logRequest(log, requestLine(logFields, outcome, started, true), door.label);
      // What c.json would send, from the text above, its headers kept plain (src/gateway/http/request-id.ts).
      return answerWithIds(c, answerJson, 200, Object.assign({ "content-type": "application/json" }, headers, answer.headers));
    } catch (error) {
      clearTimeout(deadline);
      stopWatching();
      // Whatever was started for this request (a loop, an upstream call) stops with it.
      controller.abort(error);
      const failure = error instanceof GatewayError ? error : undefined;
      if (!failure || failure.status >= 500) log.error({ requestId, err: describeFailure(error) }, `${door.label} failed`);
      else log.info({ requestId, status: failure.status, code: failure.code }, `${door.label} refused`);
      const publicError = toGatewayError(error);
      return errorResponse(c, deps.scrub ? publicError.withMessage(deps.scrub(publicError.message)) : publicError);
    }
  };
}
