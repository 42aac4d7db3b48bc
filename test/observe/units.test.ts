/**
 * The pieces under the observability: the semantic-convention names copied from the incubating
 * entry point of @opentelemetry/semantic-conventions (checked against it here), the redaction of
 * excerpts, the ring's bound, and tracingOn() with and without a registered provider.
 */
import { trace } from "@opentelemetry/api";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import * as semconv from "@opentelemetry/semantic-conventions/incubating";
import { describe, expect, it } from "vitest";
import { tracingOn } from "../../src/core/tracing.ts";
import { excerpt } from "../../src/gateway/observe/excerpt.ts";
import { ATTR, METRIC, OPERATION, prometheusName } from "../../src/gateway/observe/names.ts";
import { GatewayMetrics, MAX_LABEL_VALUES, OTHER_LABEL_VALUE } from "../../src/gateway/observe/metrics.ts";
import { parseExposition, total } from "../helpers/prometheus.ts";
import { RequestRing } from "../../src/gateway/observe/ring.ts";

describe("semantic convention names", () => {
  it("match the package's incubating constants", () => {
    const incubating = semconv as unknown as Record<string, string>;
    for (const [name, value] of Object.entries(ATTR)) expect(incubating[`ATTR_${name}`], name).toBe(value);
    for (const [name, value] of Object.entries(METRIC)) expect(incubating[`METRIC_${name}`], name).toBe(value);
    expect(incubating.GEN_AI_OPERATION_NAME_VALUE_CHAT).toBe(OPERATION.CHAT);
    expect(incubating.GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL).toBe(OPERATION.EXECUTE_TOOL);
    expect(prometheusName(METRIC.GEN_AI_CLIENT_OPERATION_DURATION, "seconds")).toBe("gen_ai_client_operation_duration_seconds");
  });
});

describe("excerpts", () => {
  const scrub = (text: string) => text.split("sk-live-secret").join("[REDACTED]");
  it("redact credential keys at any depth and configured secrets, then cut", () => {
    expect(excerpt({ a: { Authorization: "Bearer x", api_key_note: "sk-live-secret here" }, password: "p" }, scrub, 1000)).toBe('{"a":{"Authorization":"[REDACTED]","api_key_note":"[REDACTED] here"},"password":"[REDACTED]"}');
    expect(excerpt("x".repeat(30), scrub, 10)).toBe(`${"x".repeat(10)}… (20 more characters)`);
  });
});

describe("the ring of recent requests", () => {
  it("keeps the newest `size` requests, newest first", () => {
    const ring = new RequestRing(3);
    for (let i = 1; i <= 5; i++) ring.add({ id: `r${i}`, door: "chat_completions", method: "POST", path: "/v1/chat/completions", state: "done", turns: 1, toolCalls: 0, clientToolCalls: 0, inputTokens: 0, outputTokens: 0, startedAt: i, timeline: [] });
    expect(ring.list().map((r) => r.id)).toEqual(["r5", "r4", "r3"]);
    expect(ring.get("r1")).toBeUndefined();
    expect(ring.get("r4")?.seq).toBe(4);
  });
});

describe("tracingOn", () => {
  it("is false until a tracer provider is registered", async () => {
    expect(tracingOn()).toBe(false);
    const provider = new NodeTracerProvider();
    provider.register();
    try {
      expect(tracingOn()).toBe(true);
    } finally {
      await provider.shutdown();
      trace.disable();
    }
    expect(tracingOn()).toBe(false);
  });
});

describe("metric labels a client controls", () => {
  it("keep the first MAX_LABEL_VALUES model names; the rest count as _other, other labels untouched", async () => {
    const metrics = new GatewayMetrics({ servers: () => [], store: () => ({ kind: "memory", status: "ok" }) });
    for (let i = 0; i < MAX_LABEL_VALUES + 10; i++) metrics.requests.inc(metrics.bound({ door: "chat_completions", model: `p/model-${i}`, provider: "p", status: "404" }));
    metrics.requests.inc(metrics.bound({ door: "messages", model: "p/model-0", provider: "p", status: "200" }));
    const samples = parseExposition(await metrics.registry.metrics()).filter((s) => s.name === "mcp_gateway_requests_total");
    expect(new Set(samples.map((s) => s.labels.model)).size).toBe(MAX_LABEL_VALUES + 1);
    expect(total(samples, "mcp_gateway_requests_total", { model: OTHER_LABEL_VALUE, door: "chat_completions", status: "404" })).toBe(10);
    // A name already seen keeps its own series.
    expect(total(samples, "mcp_gateway_requests_total", { model: "p/model-0", door: "messages" })).toBe(1);
  });
});
