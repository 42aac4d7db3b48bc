/**
 * The observability routes: `GET /metrics` (Prometheus), the web view `/ui` (a page and its
 * script, served from strings: no build, no other server) and its data under `/ui/api/`, and the
 * middleware that starts an observation for every front-door request. With gateway keys set,
 * /metrics and the data need a key (a Prometheus scrape config sends it as a bearer token), like
 * /health's details; the page itself holds no data and asks the browser for a key. A key with
 * limits or restrictions of its own (rpm, tpm, models, mcpServers) sees only its own requests.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { toGatewayError, type GatewayError } from "../../core/index.ts";
import { inCheckPhase } from "../../core/check-phase.ts";
import type { GatewayConfig, KeyPolicy } from "../../core/config/index.ts";
import { callerKey } from "../http/auth.ts";
import { policyOf } from "../shared/keys.ts";
import { DOORS, type Observability } from "./observability.ts";
import type { RequestObservation } from "./request.ts";
import { summary, type RequestRecord } from "./ring.ts";
import { UI_CSS, UI_HTML, UI_JS } from "./ui/assets.ts";
import { requestIdOf } from "../http/request-id.ts";

/** The observation of the request being handled (set by `observeRequests`). */
export function observationOf(c: Context): RequestObservation | undefined {
  return c.get("observation" as never) as RequestObservation | undefined;
}

/** The error the gateway answered with (set by errorResponse), if any. */
function answeredError(c: Context): GatewayError | undefined {
  return c.get("gatewayError" as never) as GatewayError | undefined;
}

/**
 * Starts an observation for each POST to a front door, before auth and limits (so refusals are
 * counted), and finishes it when the answer is out — or, for a stream, leaves that to the stream's end.
 */
export function observeRequests(observability: Observability, config: GatewayConfig): MiddlewareHandler {
  const keyed = config.gateway.apiKeys.length > 0;
  return async (c, next) => {
    if (c.req.method !== "POST") return next();
    const door = DOORS[c.req.path];
    if (door === undefined) return next();
    const keyName = keyed ? policyOf(config, callerKey(c))?.name : undefined;
    const observation = observability.begin({ id: requestIdOf(c)!, method: "POST", path: c.req.path, door, header: (name) => c.req.header(name) }, keyName);
    if (!observation) return next();
    c.set("observation" as never, observation as never);
    try {
      await next();
    } catch (error) {
      observation.finish(500, toGatewayError(error));
      throw error;
    }
    if (observation.streaming) {
      // A stream that started is finished by its end (the handler's), not here; one whose answer
      // was replaced (an error after the handler) now, before its cancelled stream's end says 200.
      if (c.res.status !== 200) observation.finish(c.res.status, answeredError(c));
      return;
    }
    // A whole answer's observation is recorded after the answer is written, as its access line
    // is (src/core/check-phase.ts), its time taken now: the metrics, the web view's record and
    // the span's end were work between the answer and the client.
    const status = c.res.status;
    const error = answeredError(c);
    const at = performance.now();
    inCheckPhase(() => observation.finish(status, error, at));
  };
}

/** A key that sees only its own requests: one with limits or restrictions of its own. */
function restricted(policy: KeyPolicy | undefined): boolean {
  return policy !== undefined && (policy.rpm !== undefined || policy.tpm !== undefined || policy.models !== undefined || policy.mcpServers !== undefined);
}

export interface ObserveRouteOptions {
  observability: Observability;
  config: GatewayConfig;
  /** Checks the key when keys are set (the /v1 auth), or the Host/Origin guard without keys. */
  guard: MiddlewareHandler;
}

const NO_STORE = { "cache-control": "no-store" };

export function mountObserveRoutes(app: Hono, options: ObserveRouteOptions): void {
  const { observability, config, guard } = options;
  const metrics = observability.metrics;
  if (metrics) {
    app.get("/metrics", guard, async (c) => c.body(await metrics.scrape(), 200, { "content-type": metrics.contentType, ...NO_STORE }));
  }
  if (!observability.settings.ui) return;
  const ring = observability.ring;
  const page = (c: Context) =>
    c.html(UI_HTML, 200, {
      ...NO_STORE,
      "content-security-policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    });
  app.get("/ui", page);
  app.get("/ui/", page);
  app.get("/ui/app.js", (c) => c.body(UI_JS, 200, { "content-type": "text/javascript; charset=utf-8", ...NO_STORE }));
  app.get("/ui/app.css", (c) => c.body(UI_CSS, 200, { "content-type": "text/css; charset=utf-8", ...NO_STORE }));

  const visible = (c: Context): ((record: RequestRecord) => boolean) => {
    const policy = config.gateway.apiKeys.length > 0 ? policyOf(config, callerKey(c)) : undefined;
    if (!restricted(policy)) return () => true;
    return (record) => record.key === policy!.name;
  };
  app.use("/ui/api/*", guard);
  app.get("/ui/api/info", (c) =>
    c.json({ recentRequests: ring?.size ?? 0, metrics: metrics !== undefined, keys: config.gateway.apiKeys.length > 0 }, 200, NO_STORE),
  );
  app.get("/ui/api/requests", (c) => {
    const show = visible(c);
    return c.json({ requests: (ring?.list() ?? []).filter(show).map(summary) }, 200, NO_STORE);
  });
  app.get("/ui/api/requests/:id", (c) => {
    const record = ring?.get(c.req.param("id"));
    if (!record || !visible(c)(record)) return c.json({ error: { message: "No such request among the recent ones", type: "not_found_error" } }, 404, NO_STORE);
    return c.json(record, 200, NO_STORE);
  });
  app.get("/ui/api/servers", (c) => {
    if (restricted(config.gateway.apiKeys.length > 0 ? policyOf(config, callerKey(c)) : undefined)) {
      const policy = policyOf(config, callerKey(c))!;
      return c.json({ servers: observability.servers().filter((s) => policy.mcpServers === undefined || policy.mcpServers.includes(s.name)) }, 200, NO_STORE);
    }
    return c.json({ servers: observability.servers() }, 200, NO_STORE);
  });
  // Live: a summary of each request as it arrives and as it changes (at most every 250 ms per request).
  app.get("/ui/api/events", (c) => {
    const show = visible(c);
    const encoder = new TextEncoder();
    let cleanup = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(stream) {
        const pending = new Map<string, RequestRecord>();
        let timer: NodeJS.Timeout | undefined;
        const flush = () => {
          timer = undefined;
          const frames = [...pending.values()].map((record) => `event: request\ndata: ${JSON.stringify(summary(record))}\n\n`).join("");
          pending.clear();
          if (frames !== "") stream.enqueue(encoder.encode(frames));
        };
        const unsubscribe =
          ring?.subscribe((record) => {
            if (!show(record)) return;
            pending.set(`${record.seq}`, record);
            timer ??= setTimeout(flush, 250);
          }) ?? (() => {});
        const heartbeat = setInterval(() => stream.enqueue(encoder.encode(": keep-alive\n\n")), 15_000);
        heartbeat.unref();
        let closed = false;
        cleanup = () => {
          if (closed) return;
          closed = true;
          unsubscribe();
          untrack();
          clearInterval(heartbeat);
          clearTimeout(timer);
        };
        const untrack = observability.trackStream(() => {
          cleanup();
          try {
            stream.close();
          } catch {
            // already closed
          }
        });
        stream.enqueue(encoder.encode(`retry: 2000\nevent: hello\ndata: {}\n\n`));
      },
      cancel() {
        cleanup();
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-store", connection: "keep-alive" } });
  });
}
