/**
 * The HTTP app (Hono): request ids, auth, limits, the front doors' routes, models and health.
 * Every error leaves as a JSON body in the shape of the route's door, with a fitting status.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { GatewayError } from "../../core/index.ts";
import { chatCompletionsDoor } from "../doors/chat-completions/door.ts";
import { countTokensHandler } from "../doors/messages/count-tokens.ts";
import { messagesDoor } from "../doors/messages/door.ts";
import { anthropicErrorFormat } from "../doors/messages/errors.ts";
import { responsesDoor } from "../doors/responses/door.ts";
import { storedResponseRoutes } from "../doors/responses/stored.ts";
import { ResponseStore, type StoredResponse } from "../state/responses.ts";
import { MemoryBackend, MemoryStore } from "../state/store.ts";
import { KeyLimits } from "../shared/key-limits.ts";
import type { Logger } from "../../core/logger.ts";
import type { ChatDeps } from "../shared/deps.ts";
import { doorHandler } from "../shared/handler.ts";
import { checkThen } from "./admission.ts";
import { apiKeyAuth, keyCheck } from "./auth.ts";
import { errorResponse } from "./errors.ts";
import { hostCheck, hostGuard } from "./host-guard.ts";
import { keyLimitsGate, keyLimitsOn } from "./key-limits.ts";
import { gatewayConcurrencyCap } from "./limits.ts";
import { ANTHROPIC_IDS, carriesIds, requestIdFrom } from "./request-id.ts";
import { traceCarrierFrom, withRequestId } from "../../core/request-context.ts";
import { tracingOn } from "../../core/tracing.ts";
import { embeddingsHandler } from "./routes/embeddings.ts";
import { modelHandler, modelsHandler } from "./routes/models.ts";
import type { Observability } from "../observe/observability.ts";
import { mountObserveRoutes, observeRequests } from "../observe/routes.ts";

export interface HealthReport {
  /** `degraded` (still HTTP 200: the process is alive) when `reasons` is not empty. */
  status: "ok" | "degraded";
  /** What is missing: failed or unavailable servers, no usable provider, … (empty when ok). */
  reasons: string[];
  servers: Record<string, unknown>[];
  providers: Record<string, unknown>[];
  store?: { kind: string; status: string; error?: string };
}

/** Readiness: every enabled MCP server finished its first start (ready or failed). */
export interface ReadyReport {
  status: "ready" | "starting";
  /** The servers whose first start is still under way. */
  starting: string[];
}

export interface AppDeps extends ChatDeps {
  health(): HealthReport;
  /** For GET /ready; without it the gateway is always ready. */
  ready?(): ReadyReport;
  /** Extra routes mounted by the caller (the MCP endpoint). */
  mount?: (app: Hono) => void;
  /** Metrics, the recent requests and traces (GET /metrics, /ui); none without it. */
  observability?: Observability;
}

/**
 * The request's id (and, with tracing off, the client's trace context, which still reaches the
 * MCP servers the request calls; with tracing on the request's span does), and Anthropic's
 * protocol on its routes (and on any /v1 route asked in it: `anthropic-version`): errors in its
 * shape, and its `request-id` header beside ours; on the front doors, the request's observation
 * (`observe`: metrics and the web view). One middleware, not three: each layer of Hono's compose
 * costs about 4 µs per request (docs/performance.md).
 *
 * The async request context (src/core/request-context.ts) is entered only where something reads
 * it: Node 20's AsyncLocalStorage turns on a promise hook for the whole process once entered,
 * measured at 10% of a short request's CPU and 30% of a long stream's (docs/performance.md). So:
 * - at debug and trace level, always: the lines per turn, per tool call and of the wire come from
 *   layers that do not know the request, and that verbosity is worth its cost;
 * - at info, the lines a request writes name its id themselves (the handler's, routing's), and the
 *   doors hand the trace context to their tool calls (`traceCarrier`, the handler's LoopRun);
 *   only /mcp, whose forwarded requests read it from the context, enters it for a trace context.
 */
function requestContext(logger: Logger, observe?: MiddlewareHandler): MiddlewareHandler {
  return async (c, next) => {
    const id = requestIdFrom(c.req.header("x-request-id"));
    c.set("requestId" as never, id as never);
    const path = c.req.path;
    const door = path === "/v1" || path.startsWith("/v1/");
    const anthropic = door && (path.startsWith("/v1/messages") || c.req.header("anthropic-version") !== undefined);
    if (anthropic) {
      c.set("errorFormat" as never, anthropicErrorFormat as never);
      c.set(ANTHROPIC_IDS as never, true as never);
    }
    const trace = tracingOn() ? undefined : traceCarrierFrom(c.req.header("traceparent"), c.req.header("tracestate"));
    if (trace) c.set("traceCarrier" as never, trace as never);
    // The front doors' observation runs in this layer (one layer less: ./admission.ts says why).
    const run = door && observe ? () => observe(c, next) : next;
    try {
      if (logger.isLevelEnabled("debug") || (trace && !door)) await withRequestId(id, run, trace);
      else await run();
    } catch (error) {
      // What escapes the layers inside (the observation's own failure, now in this layer) is
      // answered as app.onError answers it, with the request id below.
      c.res = errorResponse(c, error);
    }
    // A door's whole answer has them already, in plain headers worth keeping plain (./request-id.ts).
    const answer = c.res;
    if (carriesIds(c, answer)) return;
    answer.headers.set("x-request-id", id);
    if (anthropic) answer.headers.set("request-id", id);
  };
}

/**
 * CORS for browser apps on the configured origins: preflights answered (the headers a preflight
 * asks for are allowed: the SDKs send their own), the gateway's answer headers exposed.
 */
function corsFor(origins: string[]): MiddlewareHandler {
  return cors({
    origin: origins.includes("*") ? "*" : origins,
    allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
    exposeHeaders: [
      "x-request-id",
      "request-id",
      "retry-after",
      "x-mcp-gateway-warning",
      "x-mcp-gateway-stop-reason",
      ...["requests", "tokens"].flatMap((kind) => [`x-ratelimit-limit-${kind}`, `x-ratelimit-remaining-${kind}`, `x-ratelimit-reset-${kind}`]),
    ],
    maxAge: 600,
  });
}

export function createApp(appDeps: AppDeps): Hono {
  // The key limits' counters: the gateway's store (given by the runtime), else this process's.
  const deps: AppDeps = appDeps.limits ? appDeps : { ...appDeps, limits: new KeyLimits(new MemoryBackend().counters, appDeps.logger) };
  const app = new Hono();
  // Every front-door request is observed from the first layer on: refusals by auth and limits count too.
  app.use(requestContext(deps.logger, deps.observability && observeRequests(deps.observability, deps.config)));
  // Claude Code's connectivity probe (HEAD), sent without a key.
  app.get("/api/hello", (c) => c.body(null, 200));
  // Before the host guard and the keys: a browser's preflight carries neither a key nor a body.
  if (deps.config.gateway.corsOrigins.length > 0) app.use("/v1/*", corsFor(deps.config.gateway.corsOrigins));
  const keyed = deps.config.gateway.apiKeys.length > 0;
  const auth = apiKeyAuth(deps.config.gateway.apiKeys, deps.logger);
  if (!keyed) {
    const guard = hostGuard(deps.config);
    app.use("/health", guard);
    app.use("/ready", guard);
  }
  // /metrics and /ui's data: key holders only when keys are set (like /health's details), else the Host/Origin guard.
  if (deps.observability) mountObserveRoutes(app, { observability: deps.observability, config: deps.config, guard: keyed ? auth : hostGuard(deps.config) });
  // /v1's admission: the gateway key when keys are set, else the Host/Origin guard standing in
  // for it; then the key's limits (when a key has any) and the concurrency cap. The check runs in
  // the layer of the gate after it (./admission.ts). Bodies are read (and capped at
  // gateway.maxBodyBytes) by the routes that take one.
  const admit = keyed ? keyCheck(deps.config.gateway.apiKeys, deps.logger) : hostCheck(deps.config);
  const cap = gatewayConcurrencyCap(deps.config);
  if (keyLimitsOn(deps.config)) {
    app.use("/v1/*", checkThen(admit, keyLimitsGate(deps.config, deps.limits!, deps.logger)));
    app.use("/v1/*", cap);
  } else app.use("/v1/*", checkThen(admit, cap));
  app.post("/v1/chat/completions", doorHandler(chatCompletionsDoor(deps.config), deps));
  app.post("/v1/messages", doorHandler(messagesDoor(deps.config, deps.providers), deps));
  app.post("/v1/messages/count_tokens", countTokensHandler(deps));
  const responses = deps.responses ?? new ResponseStore(new MemoryStore<StoredResponse>());
  const stored = storedResponseRoutes(responses);
  app.post("/v1/responses", doorHandler(responsesDoor({ logger: deps.logger, config: deps.config, providers: deps.providers, tools: deps.tools, responses, toolHints: deps.toolHints }), deps));
  app.get("/v1/responses/:id", stored.get);
  app.delete("/v1/responses/:id", stored.delete);
  app.get("/v1/responses/:id/input_items", stored.inputItems);
  app.post("/v1/embeddings", embeddingsHandler(deps));
  app.get("/v1/models", modelsHandler(deps.config));
  app.get("/v1/models/*", modelHandler(deps.config));
  // Liveness for anyone; server and provider details (errors, stderr tails) only for key holders
  // when keys are configured.
  const keyHolder = async (c: Context): Promise<boolean> => {
    if (deps.config.gateway.apiKeys.length === 0) return true;
    let authorized = false;
    await auth(c, async () => {
      authorized = true;
    });
    return authorized;
  };
  app.get("/health", async (c) => {
    const report = deps.health();
    if (!(await keyHolder(c))) return c.json({ status: report.status }, 200);
    return c.json(report, 200);
  });
  // Readiness (a load balancer's or Kubernetes' readinessProbe): 503 until no MCP server is
  // still on its first start, then 200 for good (a failed server does not keep it unready: it is
  // retried in the background and shows in /health). Which servers, only for key holders.
  app.get("/ready", async (c) => {
    const report = deps.ready?.() ?? { status: "ready", starting: [] };
    const code = report.status === "ready" ? 200 : 503;
    if (report.status === "ready") return c.json({ status: "ready" }, code);
    if (!(await keyHolder(c))) return c.json({ status: report.status }, code);
    return c.json(report, code);
  });
  deps.mount?.(app);
  app.notFound((c) => errorResponse(c, GatewayError.notFound(`No route for ${c.req.method} ${c.req.path}`, "unknown_route")));
  app.onError((error, c) => errorResponse(c, error));
  return app;
}
