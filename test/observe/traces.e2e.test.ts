/**
 * Traces with the OpenTelemetry SDK's in-memory exporter (a NodeTracerProvider registered as a
 * user embedding the gateway would): one trace per request under the client's `traceparent`, a
 * span per model call with the GenAI attributes (and retries and fallbacks as events), a span per
 * tool execution, and the MCP request to the upstream server as its child — whose context reaches
 * the server in `_meta.traceparent`. Content is on spans only when capture is on, redacted.
 */
import { join } from "node:path";
import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { root } from "../helpers/serve-process.ts";
import { connectHttp } from "../helpers/mcp-gateway-harness.ts";

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let model: ScriptedUpstream;
let down: FakeUpstream;
let gw: RunningGateway;
const SECRET = "sk-secret-value-0123456789";
const metaServer = { command: process.execPath, args: ["--import", "tsx", join(root, "test", "helpers", "meta-echo-server.ts")], cwd: root };

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";

beforeAll(async () => {
  provider.register();
  model = await startScriptedUpstream("openai");
  down = await startFakeUpstream((_req, res) => sendJson(res, 503, { error: { message: "overloaded", type: "server_error" } }));
  gw = await startGateway({
    mcpServers: { meta: metaServer },
    providers: {
      p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: SECRET },
      down: { type: "openai", baseURL: `${down.url}/v1`, apiKey: "k" },
    },
    models: { fb: { model: "down/m", fallbacks: ["p/m"] } },
    gateway: { retries: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 } },
  });
});

afterAll(async () => {
  await gw?.close();
  await model?.close();
  await down?.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
  propagation.disable();
});

beforeEach(() => exporter.reset());

async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

const byName = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** Spans end a little after the answer leaves (the stream's end, the door span): wait for them. */
async function spansOf(traceId: string, count: number): Promise<ReadableSpan[]> {
  const ofTrace = () => exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
  await vi.waitFor(() => expect(ofTrace().length).toBeGreaterThanOrEqual(count), { timeout: 5_000, interval: 10 });
  return ofTrace();
}

describe("traces", () => {
  for (const stream of [false, true]) {
    it(`one trace per request under the client's traceparent: door, model calls, tool execution, MCP request (${stream ? "streamed" : "whole"})`, async () => {
      model.script([{ calls: [{ id: "call_1", name: "meta__echo_meta", arguments: { note: "hi" } }] }, { text: "done" }]);
      const response = await chat({ model: "p/m", stream, messages: [{ role: "user", content: "trace me" }] }, { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` });
      expect(response.status).toBe(200);
      await response.text();
      const spans = await spansOf(TRACE_ID, 5);
      const [door] = byName(spans, "POST /v1/chat/completions");
      expect(door, spans.map((s) => s.name).join(", ")).toBeDefined();
      expect(door!.kind).toBe(SpanKind.SERVER);
      expect(parentOf(door!)).toBe(PARENT_ID);
      expect(door!.attributes).toMatchObject({
        "http.request.method": "POST",
        "http.route": "/v1/chat/completions",
        "http.response.status_code": 200,
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "p/m",
        "gen_ai.provider.name": "p",
        "gen_ai.request.stream": stream,
        "gen_ai.usage.input_tokens": 22,
        "gen_ai.usage.output_tokens": 14,
        "mcp_gateway.turns": 2,
        "mcp_gateway.tool_calls": 1,
      });
      const calls = byName(spans, "chat m");
      expect(calls).toHaveLength(2);
      for (const [i, call] of calls.entries()) {
        expect(call.kind).toBe(SpanKind.CLIENT);
        expect(parentOf(call)).toBe(door!.spanContext().spanId);
        expect(call.attributes).toMatchObject({
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "p",
          "gen_ai.request.model": "m",
          "gen_ai.response.model": "m",
          "gen_ai.usage.input_tokens": 11,
          "gen_ai.usage.output_tokens": 7,
          "mcp_gateway.turn": i + 1,
        });
      }
      expect(calls.map((c) => c.attributes["gen_ai.response.finish_reasons"])).toEqual([["tool_calls"], ["stop"]]);
      // Content is not captured by default.
      expect(door!.attributes["gen_ai.input.messages"]).toBeUndefined();
      const [tool] = byName(spans, "execute_tool meta__echo_meta");
      expect(tool!.kind).toBe(SpanKind.INTERNAL);
      expect(parentOf(tool!)).toBe(door!.spanContext().spanId);
      expect(tool!.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "meta__echo_meta", "gen_ai.tool.call.id": "call_1", "mcp_gateway.mcp_server": "meta" });
      expect(tool!.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
      const [mcp] = byName(spans, "tools/call echo_meta");
      expect(mcp!.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(mcp!)).toBe(tool!.spanContext().spanId);
      expect(mcp!.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo_meta" });
      // The tool call's order on the time axis: after the first model call, before the second.
      expect(tool!.startTime[0] * 1e9 + tool!.startTime[1]).toBeGreaterThanOrEqual(calls[0]!.endTime[0] * 1e9 + calls[0]!.endTime[1] - 2e6);
      // The MCP server got the MCP request span's context in _meta: it joins the same trace.
      const toolResult = JSON.stringify(model.chatRequests()[1]!.body.messages);
      const meta = JSON.parse(JSON.parse(toolResult).find((m: { role: string }) => m.role === "tool").content) as { traceparent?: string };
      expect(meta.traceparent).toBe(`00-${TRACE_ID}-${mcp!.spanContext().spanId}-01`);
    });
  }

  it("starts a new trace without a traceparent", async () => {
    model.script([{ text: "hello" }]);
    const response = await chat({ model: "p/m", messages: [{ role: "user", content: "hi" }] });
    await response.text();
    await vi.waitFor(() => expect(byName(exporter.getFinishedSpans(), "POST /v1/chat/completions")).toHaveLength(1), { timeout: 5_000, interval: 10 });
    const [door] = byName(exporter.getFinishedSpans(), "POST /v1/chat/completions");
    expect(door!.parentSpanContext).toBeUndefined();
    expect(byName(exporter.getFinishedSpans(), "chat m").map((s) => s.spanContext().traceId)).toEqual([door!.spanContext().traceId]);
  });

  it("puts retries and a fallback as events on the model call's span", async () => {
    model.script([{ text: "from the fallback" }]);
    const response = await chat({ model: "fb", messages: [{ role: "user", content: "hi" }] }, { traceparent: `00-${"1".repeat(32)}-${PARENT_ID}-01` });
    expect(response.status).toBe(200);
    const spans = await spansOf("1".repeat(32), 2);
    const [call] = byName(spans, "chat m");
    expect(call!.attributes).toMatchObject({ "gen_ai.provider.name": "p", "gen_ai.response.model": "m" });
    const events = call!.events.map((e) => e.name);
    expect(events).toEqual(["gen_ai.retry", "gen_ai.fallback"]);
    expect(call!.events[0]!.attributes).toMatchObject({ "gen_ai.provider.name": "down", "mcp_gateway.attempt": 1, "http.response.status_code": 503 });
    expect(call!.events[1]!.attributes).toMatchObject({ "mcp_gateway.from": "down/m", "mcp_gateway.to": "p/m" });
  });

  it("marks failed tool calls and failed requests", async () => {
    model.script([{ calls: [{ id: "call_f", name: "meta__fail", arguments: {} }] }, { text: "it failed" }]);
    await (await chat({ model: "p/m", messages: [{ role: "user", content: "fail" }] }, { traceparent: `00-${"2".repeat(32)}-${PARENT_ID}-01` })).text();
    const spans = await spansOf("2".repeat(32), 5);
    const [tool] = byName(spans, "execute_tool meta__fail");
    expect(tool!.status.code).toBe(2);
    expect(tool!.attributes["error.type"]).toBe("tool_error");
    const [mcp] = byName(spans, "tools/call fail");
    expect(mcp!.attributes["error.type"]).toBe("tool_error");

    const failed = await chat({ model: "down/m", messages: [{ role: "user", content: "hi" }] }, { traceparent: `00-${"3".repeat(32)}-${PARENT_ID}-01` });
    expect(failed.status).toBe(503);
    const failedSpans = await spansOf("3".repeat(32), 2);
    const [door] = byName(failedSpans, "POST /v1/chat/completions");
    expect(door!.status.code).toBe(2);
    expect(door!.attributes).toMatchObject({ "http.response.status_code": 503, "error.type": "upstream_503" });
    const [call] = byName(failedSpans, "chat m");
    expect(call!.status.code).toBe(2);
    expect(call!.events.map((e) => e.name)).toContain("gen_ai.retry");
  });
});

describe("the gateway as an MCP server", () => {
  it("a client's tools/call continues the trace of its _meta.traceparent, and the upstream server gets the gateway's MCP client span", async () => {
    const { client } = await connectHttp(new URL(`${gw.url}/mcp`));
    try {
      const traceId = "5".repeat(32);
      const result = await client.callTool({ name: "meta__echo_meta", arguments: {}, _meta: { traceparent: `00-${traceId}-${PARENT_ID}-01`, note: "kept" } });
      const spans = await spansOf(traceId, 2);
      const [served] = byName(spans, "tools/call meta__echo_meta");
      expect(served!.kind).toBe(SpanKind.SERVER);
      expect(parentOf(served!)).toBe(PARENT_ID);
      expect(served!.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "meta__echo_meta", "gen_ai.operation.name": "execute_tool" });
      // The forwarded request: a CLIENT span under the served one, named by the server's tool name.
      const [forwarded] = byName(spans, "tools/call echo_meta");
      expect(forwarded!.kind).toBe(SpanKind.CLIENT);
      expect(parentOf(forwarded!)).toBe(served!.spanContext().spanId);
      expect(forwarded!.attributes).toMatchObject({ "mcp.method.name": "tools/call", "gen_ai.tool.name": "echo_meta", "mcp_gateway.mcp_server": "meta" });
      // What the upstream server got: the client's other _meta entries, and the gateway's client span as parent.
      const meta = JSON.parse((result.content as { text: string }[])[0]!.text) as Record<string, string>;
      expect(meta).toMatchObject({ note: "kept", traceparent: `00-${traceId}-${forwarded!.spanContext().spanId}-01` });

      const failedTrace = "6".repeat(32);
      await client.callTool({ name: "meta__fail", arguments: {}, _meta: { traceparent: `00-${failedTrace}-${PARENT_ID}-01` } });
      const [failed] = byName(await spansOf(failedTrace, 1), "tools/call meta__fail");
      expect(failed!.attributes["error.type"]).toBe("tool_error");
      expect(failed!.status.code).toBe(2);
    } finally {
      await client.close();
    }
  });
});

describe("content capture", () => {
  it("puts prompts and tool arguments/results on spans when switched on, redacted like the logs", async () => {
    const capturing = await startGateway({
      mcpServers: { meta: metaServer },
      providers: { p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: SECRET } },
      gateway: { observability: { captureContent: true } },
    });
    try {
      model.script([{ calls: [{ id: "call_c", name: "meta__echo_meta", arguments: { note: `key ${SECRET}`, authorization: "Bearer abc" } }] }, { text: "done" }]);
      const response = await fetch(`${capturing.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", traceparent: `00-${"4".repeat(32)}-${PARENT_ID}-01` },
        body: JSON.stringify({ model: "p/m", messages: [{ role: "user", content: `my prompt with ${SECRET}` }] }),
      });
      expect(response.status).toBe(200);
      const spans = await spansOf("4".repeat(32), 5);
      const [door] = byName(spans, "POST /v1/chat/completions");
      const input = JSON.parse(String(door!.attributes["gen_ai.input.messages"])) as { role: string; parts: { type: string; content: string }[] }[];
      expect(input[0]).toEqual({ role: "user", parts: [{ type: "text", content: "my prompt with [REDACTED]" }] });
      expect(JSON.parse(String(door!.attributes["gen_ai.output.messages"]))).toEqual([{ role: "assistant", parts: [{ type: "text", content: "done" }] }]);
      const [tool] = byName(spans, "execute_tool meta__echo_meta");
      expect(JSON.parse(String(tool!.attributes["gen_ai.tool.call.arguments"]))).toEqual({ note: "key [REDACTED]", authorization: "[REDACTED]" });
      expect(String(tool!.attributes["gen_ai.tool.call.result"])).toContain("traceparent");
      const [call] = byName(spans, "chat m");
      expect(String(call!.attributes["gen_ai.output.messages"])).toContain('"type":"tool_call"');
      expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(SECRET);
    } finally {
      await capturing.close();
    }
  });
});
