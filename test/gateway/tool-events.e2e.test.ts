/**
 * Live tool progress in streams (opt-in): the gateway's MCP call — server-everything's
 * long-running operation, which sends progress notifications — reported as it starts,
 * progresses and ends, through each door in its own idiom; standard clients (the openai client,
 * the AI SDK, the Anthropic SDK) read the same answer as without them.
 */
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { checkResponsesStream, gatewayResponsesEvents, parseSseEvents } from "../helpers/responses-stream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

type Json = any;
const TOOL = "everything__trigger-long-running-operation";
const ANSWER = "The operation finished.";

let upstream: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({ providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } } });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

function script() {
  upstream.script([{ calls: [{ id: "call_long", name: TOOL, arguments: { duration: 0.1, steps: 2 } }] }, { text: ANSWER }]);
}

/** What every door reports, in order, for the scripted call. */
function expectToolEvents(events: Json[]) {
  expect(events.map((e) => e.type)).toEqual(["tool_start", "tool_progress", "tool_progress", "tool_end"]);
  expect(events[0]).toEqual({ type: "tool_start", turn: 1, call_id: "call_long", name: TOOL, arguments: { duration: 0.1, steps: 2 } });
  expect(events.slice(1, 3).map((e) => [e.call_id, e.name, e.progress, e.total])).toEqual([
    ["call_long", TOOL, 1, 2],
    ["call_long", TOOL, 2, 2],
  ]);
  expect(events[3]).toMatchObject({ type: "tool_end", turn: 1, call_id: "call_long", name: TOOL, is_error: false });
  expect(events[3].duration_ms).toEqual(expect.any(Number));
}

async function post(path: string, body: object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

describe("tool events through /v1/chat/completions", () => {
  it("come as mcp_gateway deltas, read by the openai client beside the text", async () => {
    script();
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "fake/m",
      stream: true,
      messages: [{ role: "user", content: "run it" }],
      // An extra body field, passed through by the client as it is.
      ...({ mcp_gateway: { tool_events: true } } as object),
    });
    let text = "";
    const events: Json[] = [];
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Json;
      text += delta?.content ?? "";
      if (delta?.mcp_gateway) events.push(delta.mcp_gateway.tool_event);
    }
    expect(text).toBe(ANSWER);
    expectToolEvents(events);
    // The option never reaches the provider.
    expect(upstream.chatRequests()[0]!.body.mcp_gateway).toBeUndefined();
  });

  it("are not sent without the option", async () => {
    script();
    const response = await post("/v1/chat/completions", { model: "fake/m", stream: true, messages: [{ role: "user", content: "run it" }] });
    const body = await response.text();
    expect(body).toContain(ANSWER.slice(0, 5));
    expect(body).not.toContain("tool_event");
  });

  it("leave the AI SDK's answer as it is (the header form)", async () => {
    script();
    const provider = createOpenAICompatible({ name: "gateway", baseURL: `${gw.url}/v1`, apiKey: "unused", headers: { "x-mcp-gateway-tool-events": "true" } });
    const result = streamText({ model: provider("fake/m"), prompt: "run it" });
    expect(await result.text).toBe(ANSWER);
    expect(await result.finishReason).toBe("stop");
    expect(upstream.chatRequests()).toHaveLength(2);
  });

  it("refuses a bad option naming it, in the door's error shape", async () => {
    const bad = await post("/v1/chat/completions", { model: "fake/m", stream: true, messages: [{ role: "user", content: "x" }], mcp_gateway: { tool_events: "yes" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toMatchObject({ param: "mcp_gateway.tool_events", code: "invalid_mcp_gateway_option" });
    const badHeader = await post("/v1/chat/completions", { model: "fake/m", messages: [{ role: "user", content: "x" }] }, { "x-mcp-gateway-tool-events": "maybe" });
    expect(badHeader.status).toBe(400);
    expect(((await badHeader.json()) as Json).error).toMatchObject({ param: "x-mcp-gateway-tool-events", message: 'x-mcp-gateway-tool-events: expected true or false, got "maybe"' });
  });
});

describe("tool events through /v1/messages", () => {
  it("come as `event: mcp_gateway`, and the Anthropic SDK's message is unaffected", async () => {
    script();
    const body = { model: "fake/m", max_tokens: 100, stream: true, messages: [{ role: "user", content: "run it" }], mcp_gateway: { tool_events: true } };
    const raw = parseSseEvents(await (await post("/v1/messages", body)).text());
    const tool = raw.filter((e) => e.event === "mcp_gateway");
    for (const e of tool) expect(e.data.type).toBe("mcp_gateway");
    expectToolEvents(tool.map((e) => e.data.tool_event));
    // Between the turns' blocks, never inside one.
    const firstTool = raw.findIndex((e) => e.event === "mcp_gateway");
    expect(raw.slice(0, firstTool).filter((e) => e.event === "content_block_start").length).toBe(raw.slice(0, firstTool).filter((e) => e.event === "content_block_stop").length);

    script();
    const client = new Anthropic({ baseURL: gw.url, apiKey: "unused", maxRetries: 0 });
    const stream = client.messages.stream({ model: "fake/m", max_tokens: 100, messages: [{ role: "user", content: "run it" }] }, { headers: { "x-mcp-gateway-tool-events": "true" } });
    const seen: string[] = [];
    stream.on("streamEvent", (event) => seen.push((event as Json).type));
    const message = await stream.finalMessage();
    expect(message.content.map((block) => (block.type === "text" ? block.text : block.type))).toEqual([ANSWER]);
    expect(message.stop_reason).toBe("end_turn");
    expect(seen).toContain("mcp_gateway");
  });
});

describe("tool events through /v1/responses", () => {
  it("ride on the mcp_call events, progress as repeated in_progress events of the item", async () => {
    script();
    const body = { model: "fake/m", stream: true, input: "run it", mcp_gateway: { tool_events: true } };
    const events = gatewayResponsesEvents(await (await post("/v1/responses", body)).text());
    // The grammar as a strict client reads it: unchanged.
    checkResponsesStream(events);
    const mcp = events.filter((e) => e.event.startsWith("response.mcp_call."));
    expect(mcp.map((e) => e.event)).toEqual([
      "response.mcp_call.in_progress",
      "response.mcp_call.in_progress",
      "response.mcp_call.in_progress",
      "response.mcp_call.completed",
    ]);
    expectToolEvents(mcp.map((e) => e.data.mcp_gateway.tool_event));
    const itemIds = new Set(mcp.map((e) => e.data.item_id));
    expect(itemIds.size).toBe(1);

    script();
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = client.responses.stream({ model: "fake/m", input: "run it" }, { headers: { "x-mcp-gateway-tool-events": "true" } });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe(ANSWER);
    expect(final.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
  });
});
