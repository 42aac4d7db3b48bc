/**
 * With tracing off (no tracer provider: the default), a client's W3C `traceparent` on a /v1
 * request still reaches the MCP servers the request calls, in their requests' `_meta`: a server
 * that traces joins the client's trace (issue #14). A malformed one is not passed on, and an MCP
 * client's own `_meta.traceparent` through /mcp is not replaced by its HTTP header's.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tracingOn } from "../../src/core/tracing.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { root } from "../helpers/serve-process.ts";
import { connectHttp } from "../helpers/mcp-gateway-harness.ts";

let model: ScriptedUpstream;
let gw: RunningGateway;
const metaServer = { command: process.execPath, args: ["--import", "tsx", join(root, "test", "helpers", "meta-echo-server.ts")], cwd: root };
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

beforeAll(async () => {
  model = await startScriptedUpstream("openai");
  gw = await startGateway({ mcpServers: { meta: metaServer }, providers: { p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: "k" } } });
});

afterAll(async () => {
  await gw?.close();
  await model?.close();
});

/** The `_meta` the MCP server got for the chat request's tool call (its answer, as the model's second turn saw it). */
async function metaSeenUpstream(headers: Record<string, string>): Promise<Record<string, unknown>> {
  model.script([{ calls: [{ id: "call_1", name: "meta__echo_meta", arguments: {} }] }, { text: "done" }]);
  const before = model.chatRequests().length;
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "p/m", messages: [{ role: "user", content: "trace me" }] }),
  });
  expect(response.status).toBe(200);
  const second = model.chatRequests()[before + 1]!.body as { messages: { role: string; content: string }[] };
  return JSON.parse(second.messages.find((m) => m.role === "tool")!.content) as Record<string, unknown>;
}

describe("the client's trace context with tracing off", () => {
  it("is off in this file", () => {
    expect(tracingOn()).toBe(false);
  });

  it("reaches the MCP server of a tool call the request made", async () => {
    const meta = await metaSeenUpstream({ traceparent: TRACEPARENT, tracestate: "vendor=abc" });
    expect(meta).toMatchObject({ traceparent: TRACEPARENT, tracestate: "vendor=abc" });
  });

  it("is not passed on when absent or malformed", async () => {
    expect((await metaSeenUpstream({})).traceparent).toBeUndefined();
    for (const bad of ["junk", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", `${TRACEPARENT}-extra`]) {
      const meta = await metaSeenUpstream({ traceparent: bad, tracestate: "vendor=abc" });
      expect(meta.traceparent, bad).toBeUndefined();
      expect(meta.tracestate, bad).toBeUndefined();
    }
  });

  it("does not replace an MCP client's own _meta.traceparent through /mcp, and fills in for a client that sent none", async () => {
    const { client } = await connectHttp(new URL(`${gw.url}/mcp`), { headers: { traceparent: TRACEPARENT } });
    try {
      const own = "00-5555555555555555555555555555555a-00f067aa0ba902b7-01";
      const kept = await client.callTool({ name: "meta__echo_meta", arguments: {}, _meta: { traceparent: own } });
      expect(JSON.parse((kept.content as { text: string }[])[0]!.text)).toEqual({ traceparent: own });
      const filled = await client.callTool({ name: "meta__echo_meta", arguments: {} });
      expect(JSON.parse((filled.content as { text: string }[])[0]!.text)).toMatchObject({ traceparent: TRACEPARENT });
    } finally {
      await client.close();
    }
  });
});
