/**
 * observeRequests: a front-door request's observation begins before the handler and, for a whole
 * answer (or a refusal), ends after the answer has been handed over — in the check phase of the
 * turn that writes it, as the access line does — with the answer's status and error. A stream
 * that started is left to the stream's end.
 */
import { Hono, type Context } from "hono";
import { describe, expect, it } from "vitest";
import { GatewayError } from "../../src/core/index.ts";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { Observability } from "../../src/gateway/observe/observability.ts";
import { observationOf, observeRequests } from "../../src/gateway/observe/routes.ts";

function observedApp(answer: (c: Context) => Response): { app: Hono; observability: Observability } {
  const observability = new Observability({
    settings: { metrics: true, ui: true, recentRequests: 10, captureContent: false },
    logger: silentLogger(),
    scrub: (text) => text,
    origin: () => undefined,
    sources: { servers: () => [], store: () => ({ kind: "memory", status: "ok" }) },
    servers: () => [],
  });
  const app = new Hono();
  app.use(async (c, next) => {
    c.set("requestId" as never, (c.req.header("x-request-id") ?? "req") as never);
    await next();
  });
  app.use(observeRequests(observability, resolveConfig({}, {})));
  app.post("/v1/chat/completions", (c) => answer(c));
  return { app, observability };
}

const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

function recordOf(observability: Observability, id: string) {
  return observability.ring!.list().find((record) => record.id === id);
}

describe("observeRequests", () => {
  it("ends a whole answer's observation after the answer is handed over, with its status", async () => {
    const { app, observability } = observedApp((c) => Response.json({ observed: observationOf(c) !== undefined }));
    const response = await app.request("/v1/chat/completions", { method: "POST", headers: { "x-request-id": "whole" } });
    // The answer is out; its observation (metrics, the web view's record, the span) ends next.
    expect(recordOf(observability, "whole")?.state).toBe("running");
    await nextCheckPhase();
    expect(await response.json()).toEqual({ observed: true });
    const record = recordOf(observability, "whole");
    expect(record?.state).toBe("done");
    expect(record?.status).toBe(200);
    expect(await observability.metrics!.scrape()).toMatch(/^mcp_gateway_requests_total\{[^}]*status="200"[^}]*\} 1$/m);
  });

  it("ends a refusal's observation the same way, with the error the answer carried", async () => {
    const { app, observability } = observedApp(() => {
      throw new GatewayError("no such model", { status: 404, type: "invalid_request_error", code: "model_not_found" });
    });
    app.onError((error, c) => {
      c.set("gatewayError" as never, error as never);
      return c.json({ error: error.message }, (error as GatewayError).status as 404);
    });
    const response = await app.request("/v1/chat/completions", { method: "POST", headers: { "x-request-id": "refused" } });
    expect(response.status).toBe(404);
    expect(recordOf(observability, "refused")?.state).toBe("running");
    await nextCheckPhase();
    const record = recordOf(observability, "refused");
    expect(record?.state).toBe("failed");
    expect(record?.status).toBe(404);
    expect(record?.error).toBe("no such model");
  });

  it("ends a started stream's observation at once when its answer was replaced by an error (its stream's end must not say 200)", async () => {
    const { app, observability } = observedApp((c) => {
      // The handler's stream started (its writer taken); what went out instead is an error.
      observationOf(c)!.writer({ open: () => "", event: () => "", finish: () => "", fail: () => "", heartbeat: "" });
      return new Response("replaced", { status: 502 });
    });
    await app.request("/v1/chat/completions", { method: "POST", headers: { "x-request-id": "replaced" } });
    const record = recordOf(observability, "replaced");
    expect(record?.state).toBe("failed");
    expect(record?.status).toBe(502);
  });
});
