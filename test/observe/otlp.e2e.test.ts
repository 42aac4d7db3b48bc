/**
 * The exporter path, as an operator runs it: `mcp-gateway serve` with the standard OTEL_*
 * variables sends its spans over OTLP/HTTP to a receiver (here one the test starts on
 * 127.0.0.1, as an OpenTelemetry Collector would listen), with the service name from
 * OTEL_SERVICE_NAME; spans still buffered at SIGTERM are flushed before the process exits.
 * Without the variables, nothing is sent and the SDK is not loaded.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";
import { npmServer } from "../helpers/gateway-harness.ts";
import { tracesRequested } from "../../src/gateway/observe/otel-sdk.ts";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}
interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

let receiver: Server;
let receiverUrl: string;
const exports: { path: string; contentType: string | undefined; body: OtlpExport }[] = [];
let model: ScriptedUpstream;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      exports.push({ path: req.url ?? "", contentType: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  model = await startScriptedUpstream("openai");
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await model.close();
});

const spansOf = () => exports.flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => ({ ...span, resource: r.resource, scope: s.scope.name })))));
const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;

describe("OTLP/HTTP export", () => {
  it("serve exports its spans to the OTEL_EXPORTER_OTLP_ENDPOINT, with OTEL_SERVICE_NAME, and flushes at SIGTERM", async () => {
    model.script([{ calls: [{ id: "call_1", name: "everything__echo", arguments: { message: "hi" } }] }, { text: "done" }]);
    const config = writeConfig({ mcpServers: { everything: npmServer("server-everything") }, providers: { p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: "k" } } });
    let gateway: ServeProcess | undefined;
    try {
      gateway = await startServe(config, ["--port", "0"], {
        // A long batch delay: the spans of this request leave only when the gateway stops (flushed at SIGTERM).
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_SERVICE_NAME: "gateway-under-test", OTEL_BSP_SCHEDULE_DELAY: "60000" },
      });
      await gateway.waitForLog(/tracing on: spans exported over OTLP\/HTTP/);
      await gateway.waitForLog(/MCP servers started/);
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01` },
        body: JSON.stringify({ model: "p/m", messages: [{ role: "user", content: "echo hi" }] }),
      });
      expect(response.status).toBe(200);
      expect(exports).toHaveLength(0);
      // A web view left open (its live stream) does not hold the shutdown.
      const events = await fetch(`${gateway.url}/ui/api/events`);
      expect(events.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const reading = events.text().catch(() => "");
      const stopping = Date.now();
      gateway.child.kill("SIGTERM");
      expect(await gateway.exited).toBe(0);
      expect(Date.now() - stopping).toBeLessThan(5_000);
      expect(await reading).toContain("event: hello");
    } finally {
      gateway?.kill();
    }
    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every((e) => e.path === "/v1/traces" && e.contentType?.startsWith("application/json"))).toBe(true);
    const spans = spansOf().filter((s) => s.traceId === "a".repeat(32));
    expect(spans.map((s) => s.name).sort()).toEqual(["POST /v1/chat/completions", "chat m", "chat m", "execute_tool everything__echo", "tools/call echo"]);
    const door = spans.find((s) => s.name === "POST /v1/chat/completions")!;
    expect(door.parentSpanId).toBe("b".repeat(16));
    expect(attribute(door, "gen_ai.request.model")).toEqual({ stringValue: "p/m" });
    expect(spans[0]!.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue).toBe("gateway-under-test");
    expect(spans[0]!.scope).toBe("mcp-gateway");
  });

  it("is off without the variables (and with OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none)", () => {
    expect(tracesRequested({})).toHaveProperty("off");
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" })).toHaveProperty("off");
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_TRACES_EXPORTER: "none" })).toHaveProperty("off");
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })).toEqual({ endpoint: "http://c:4318/v1/traces" });
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom" })).toEqual({ endpoint: "http://c:4318/custom" });
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toEqual({ endpoint: "http://localhost:4318/v1/traces" });
  });
});
