/**
 * Plan mode end to end through each door (scripted OpenAI upstream on 127.0.0.1, server-everything
 * for the tools): the plan written, step A runs an MCP call, step B fails, one re-plan, the
 * summary; the plan's statuses reach the client in order (Chat Completions deltas, Messages
 * events) and with the answer (`mcp_gateway.plan`), the narration as reasoning, the summary as the
 * text; real clients read it (the openai client, the Anthropic SDK, a strict Responses reader).
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { checkResponsesStream, gatewayResponsesEvents } from "../helpers/responses-stream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

type Json = any;
const plan = (...titles: string[]) => ({ text: JSON.stringify({ steps: titles.map((title) => ({ title, instruction: `do ${title}` })) }) });
const ANSWER = "Final answer: A and B2 are done.";

let upstream: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({ providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } }, models: { planner: { model: "fake/m", mode: "plan" } } });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

function script() {
  upstream.script([
    plan("A", "B", "C"),
    { calls: [{ id: "call_a", name: "everything__echo", arguments: { message: "a" } }] },
    { text: "A gave Echo: a" },
    { text: "STEP FAILED: B needs access it does not have" },
    plan("B2"),
    { text: "B2 done another way" },
    { text: ANSWER },
  ]);
}

const EXPECTED_STATUSES = [
  "1:pending 2:pending 3:pending",
  "1:running 2:pending 3:pending",
  "1:done 2:pending 3:pending",
  "1:done 2:running 3:pending",
  "1:done 2:failed 3:skipped",
  "1:done 2:failed 3:skipped 4:pending",
  "1:done 2:failed 3:skipped 4:running",
  "1:done 2:failed 3:skipped 4:done",
];
const statuses = (plans: Json[]) => plans.map((p) => p.steps.map((s: Json) => `${s.id}:${s.status}`).join(" "));

function expectUpstreamCalls() {
  const requests = upstream.chatRequests();
  expect(requests).toHaveLength(7);
  // The plan call asks for the plan's JSON schema, with no tools; the step calls have the MCP tools.
  expect(requests[0]!.body.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "plan" } });
  expect(requests[0]!.body.tools).toBeUndefined();
  expect(requests[1]!.body.tools.map((t: Json) => t.function.name)).toContain("everything__echo");
  expect(JSON.stringify(requests[4]!.body.messages.at(-1))).toContain("Step 2 failed: B needs access it does not have");
  expect(requests[2]!.body.messages.find((m: Json) => m.role === "tool")).toMatchObject({ tool_call_id: "call_a", content: "Echo: a" });
}

async function post(path: string, body: object, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

describe("plan mode through /v1/chat/completions", () => {
  it("streams the plan's statuses in order, the narration as reasoning, and the summary as the answer (alias mode)", async () => {
    script();
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: "planner", stream: true, messages: [{ role: "user", content: "do the task" }] });
    let text = "";
    let reasoning = "";
    const plans: Json[] = [];
    let info: Json;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as Json;
      text += delta?.content ?? "";
      reasoning += delta?.reasoning_content ?? "";
      if (delta?.mcp_gateway?.plan) plans.push(delta.mcp_gateway.plan);
      if ((chunk as Json).mcp_gateway) info = (chunk as Json).mcp_gateway;
    }
    expect(text).toBe(ANSWER);
    expect(statuses(plans)).toEqual(EXPECTED_STATUSES);
    expect(reasoning).toContain("Plan:\n1. A\n2. B\n3. C\n");
    expect(reasoning).toContain("Step 2 failed: B needs access it does not have");
    expect(reasoning).toContain("New plan for the rest:\n4. B2\n");
    expect(info.plan.replanned).toBe(true);
    expect(info.tool_calls).toEqual([{ name: "everything__echo", duration_ms: expect.any(Number), is_error: false }]);
    expect(info.turns).toBe(7);
    expectUpstreamCalls();
  });

  it("answers whole with the plan in mcp_gateway (request option), and refuses a bad mode", async () => {
    script();
    const response = await post("/v1/chat/completions", { model: "fake/m", messages: [{ role: "user", content: "do the task" }], mcp_gateway: { mode: "plan" } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body.choices[0].message.content).toBe(ANSWER);
    expect(body.choices[0].finish_reason).toBe("stop");
    expect(body.mcp_gateway.plan.steps.map((s: Json) => [s.title, s.status])).toEqual([
      ["A", "done"],
      ["B", "failed"],
      ["C", "skipped"],
      ["B2", "done"],
    ]);
    // The client's own tools are left out, and the answer says so.
    script();
    const withTools = await post("/v1/chat/completions", {
      model: "planner",
      messages: [{ role: "user", content: "do the task" }],
      tools: [{ type: "function", function: { name: "client_lookup", parameters: { type: "object", properties: {} } } }],
    });
    expect(withTools.status).toBe(200);
    expect(withTools.headers.get("x-mcp-gateway-warning")).toBe("the request's own tools are not offered in plan mode");
    expect(upstream.chatRequests()[1]!.body.tools.map((t: Json) => t.function.name)).not.toContain("client_lookup");
    const bad = await post("/v1/chat/completions", { model: "fake/m", messages: [{ role: "user", content: "x" }] }, { "x-mcp-gateway-mode": "wander" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error).toMatchObject({ param: "x-mcp-gateway-mode", code: "invalid_mcp_gateway_option" });
    const badBody = await post("/v1/chat/completions", { model: "fake/m", messages: [{ role: "user", content: "x" }], mcp_gateway: { mode: 3 } });
    expect(((await badBody.json()) as Json).error).toMatchObject({ param: "mcp_gateway.mode" });
  });
});

describe("plan mode through /v1/messages", () => {
  it("sends the plan as mcp_gateway events and thinking, the summary as text (Anthropic SDK)", async () => {
    script();
    const client = new Anthropic({ baseURL: gw.url, apiKey: "unused", maxRetries: 0 });
    const stream = client.messages.stream({ model: "planner", max_tokens: 500, messages: [{ role: "user", content: "do the task" }] });
    const plans: Json[] = [];
    stream.on("streamEvent", (event) => {
      if ((event as Json).type === "mcp_gateway") plans.push((event as Json).plan);
    });
    const message = await stream.finalMessage();
    expect(statuses(plans)).toEqual(EXPECTED_STATUSES);
    const texts = message.content.filter((b) => b.type === "text").map((b) => (b as { text: string }).text);
    expect(texts).toEqual([ANSWER]);
    const thinking = message.content.filter((b) => b.type === "thinking").map((b) => (b as { thinking: string }).thinking).join("");
    expect(thinking).toContain("Step 1 done: A gave Echo: a");
    expect(message.stop_reason).toBe("end_turn");
    expectUpstreamCalls();
  });
});

describe("plan mode through /v1/responses", () => {
  it("streams reasoning items, the step's mcp_call and the answer, with the plan on the response", async () => {
    script();
    const events = gatewayResponsesEvents(await (await post("/v1/responses", { model: "planner", stream: true, input: "do the task" })).text());
    checkResponsesStream(events);
    const final = events.at(-1)!.data.response;
    expect(final.output.filter((i: Json) => i.type === "mcp_call").map((i: Json) => [i.name, i.output])).toEqual([["echo", "Echo: a"]]);
    expect(final.output.at(-1)).toMatchObject({ type: "message", content: [{ type: "output_text", text: ANSWER }] });
    expect(final.output.filter((i: Json) => i.type === "reasoning").length).toBeGreaterThan(3);
    expect(statuses([final.mcp_gateway.plan])).toEqual([EXPECTED_STATUSES.at(-1)]);
    expectUpstreamCalls();
  });
});
