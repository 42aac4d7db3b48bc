/**
 * GET /metrics after scripted traffic through a real gateway: an MCP tool call (server-everything's
 * echo), a client tool handed back, a fallback after a failing provider's retries, an upstream 429
 * retried, a key over its rpm (429), and a stream. The counts and histograms are read back from
 * the Prometheus text, as a scraper would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { find, parseExposition, total, type Sample } from "../helpers/prometheus.ts";
import { connectHttp } from "../helpers/mcp-gateway-harness.ts";

let model: ScriptedUpstream;
let down: FakeUpstream;
let flaky: FakeUpstream;
let gw: RunningGateway;
const ADMIN = "admin-key-0123456789";
const TEAM = "team-key-0123456789";

function lastMessage(body: { messages: { role: string; content: unknown }[] }) {
  return body.messages[body.messages.length - 1]!;
}

beforeAll(async () => {
  model = await startScriptedUpstream("openai");
  model.script((request) => {
    const body = request.body as { messages: { role: string; content: unknown }[]; tools?: { function: { name: string } }[] };
    const last = lastMessage(body);
    if (last.role === "tool") return { text: "The tool said hello." };
    if (String(last.content).includes("use echo")) return { calls: [{ id: "call_echo", name: "everything__echo", arguments: { message: "hello" } }] };
    if (body.tools?.some((t) => t.function.name === "get_time")) return { calls: [{ id: "call_time", name: "get_time", arguments: {} }] };
    return { text: "Hi there." };
  });
  // Always unavailable: retried, then the alias falls back.
  down = await startFakeUpstream((_req, res) => sendJson(res, 503, { error: { message: "overloaded", type: "server_error" } }));
  // One 429, then answers.
  let calls = 0;
  flaky = await startFakeUpstream((req, res) => {
    if (calls++ === 0) return sendJson(res, 429, { error: { message: "slow down", type: "rate_limit_error", code: "rate_limit_exceeded" } }, { "retry-after": "0" });
    sendJson(res, 200, {
      id: "chatcmpl-flaky",
      object: "chat.completion",
      created: 1,
      model: String(req.body.model),
      choices: [{ index: 0, message: { role: "assistant", content: "Finally." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
  });
  gw = await startGateway({
    providers: {
      p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: "k" },
      down: { type: "openai", baseURL: `${down.url}/v1`, apiKey: "k" },
      flaky: { type: "openai", baseURL: `${flaky.url}/v1`, apiKey: "k" },
    },
    models: { fb: { model: "down/m", fallbacks: ["p/m"] } },
    gateway: {
      apiKeys: [ADMIN, { key: TEAM, name: "team", rpm: 1 }],
      retries: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 },
    },
  });
});

afterAll(async () => {
  await gw?.close();
  await model?.close();
  await down?.close();
  await flaky?.close();
});

async function chat(body: Record<string, unknown>, key = ADMIN): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body: JSON.stringify(body) });
}

async function scrape(key: string | null = ADMIN): Promise<{ status: number; text: string; samples: Sample[]; type: string | null }> {
  const response = await fetch(`${gw.url}/metrics`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await response.text();
  return { status: response.status, text, samples: parseExposition(text), type: response.headers.get("content-type") };
}

describe("GET /metrics", () => {
  it("counts and times what scripted traffic did", async () => {
    const user = (content: string) => [{ role: "user", content }];
    // An MCP tool call, then the answer.
    const mcp = await chat({ model: "p/m", messages: user("please use echo") });
    expect(mcp.status).toBe(200);
    // A client tool, handed back.
    const client = await chat({ model: "p/m", messages: user("what time is it"), tools: [{ type: "function", function: { name: "get_time", parameters: { type: "object", properties: {} } } }] });
    expect(((await client.json()) as { choices: { finish_reason: string }[] }).choices[0]!.finish_reason).toBe("tool_calls");
    // A fallback: down/m fails twice (503), p/m answers.
    const fallback = await chat({ model: "fb", messages: user("hello") });
    expect(fallback.status).toBe(200);
    // A provider that stays down: retried, then the request fails.
    expect((await chat({ model: "down/m", messages: user("hello") })).status).toBe(503);
    // An upstream 429, retried.
    expect((await chat({ model: "flaky/m", messages: user("hello") })).status).toBe(200);
    // A stream (time to first token).
    const stream = await chat({ model: "p/m", stream: true, messages: user("hello") });
    expect(await stream.text()).toContain("[DONE]");
    // The team key's second request in the minute: refused by its rpm.
    expect((await chat({ model: "p/m", messages: user("hello") }, TEAM)).status).toBe(200);
    const refused = await chat({ model: "p/m", messages: user("hello") }, TEAM);
    expect(refused.status).toBe(429);

    const { status, samples, type, text } = await scrape();
    if (process.env.DUMP_METRICS) console.log(text.split("\n").filter((l) => l.includes("down")).join("\n"));
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    const door = { door: "chat_completions" };
    // Requests by door / model / provider / status.
    expect(total(samples, "mcp_gateway_requests_total", { ...door, model: "p/m", provider: "p", status: "200" })).toBe(4);
    expect(total(samples, "mcp_gateway_requests_total", { ...door, model: "fb", provider: "p", status: "200" })).toBe(1);
    expect(total(samples, "mcp_gateway_requests_total", { ...door, model: "flaky/m", provider: "flaky", status: "200" })).toBe(1);
    expect(total(samples, "mcp_gateway_requests_total", { ...door, model: "down/m", provider: "down", status: "503" })).toBe(1);
    expect(total(samples, "mcp_gateway_requests_total", { ...door, status: "429" })).toBe(1);
    expect(total(samples, "mcp_gateway_requests_in_flight", door)).toBe(0);
    // Tool calls: the MCP one by server/tool/outcome, the client's by door.
    expect(total(samples, "mcp_gateway_tool_calls_total", { server: "everything", tool: "echo", outcome: "ok" })).toBe(1);
    expect(total(samples, "mcp_gateway_client_tool_calls_total", door)).toBe(1);
    // Loop turns per request that ran the loop: the MCP request took 2, the 5 others 1.
    expect(total(samples, "mcp_gateway_loop_turns_count", door)).toBe(6);
    expect(total(samples, "mcp_gateway_loop_turns_sum", door)).toBe(7);
    expect(total(samples, "mcp_gateway_loop_turns_bucket", { ...door, le: "1" })).toBe(5);
    // Retries and fallbacks.
    expect(total(samples, "mcp_gateway_upstream_retries_total", { provider: "down", reason: "503" })).toBe(2);
    expect(total(samples, "mcp_gateway_upstream_retries_total", { provider: "flaky", reason: "429" })).toBe(1);
    expect(total(samples, "mcp_gateway_upstream_fallbacks_total", { from: "down", to: "p" })).toBe(1);
    // The key's refusal.
    expect(total(samples, "mcp_gateway_limit_refusals_total", { reason: "rate_limit_exceeded", key: "team" })).toBe(1);
    // GenAI: token usage per model call (the scripted upstream reports 11 in / 7 out), call durations.
    const p = { gen_ai_operation_name: "chat", gen_ai_provider_name: "p", gen_ai_request_model: "m" };
    // Model calls answered by p: 2 (MCP) + 1 (client tool) + 1 (fallback) + 1 (stream) + 1 (team) = 6.
    expect(total(samples, "gen_ai_client_token_usage_count", { ...p, gen_ai_token_type: "input" })).toBe(6);
    expect(total(samples, "gen_ai_client_token_usage_sum", { ...p, gen_ai_token_type: "input" })).toBe(66);
    expect(total(samples, "gen_ai_client_token_usage_sum", { ...p, gen_ai_token_type: "output" })).toBe(42);
    expect(total(samples, "gen_ai_client_token_usage_bucket", { ...p, gen_ai_token_type: "input", le: "16" })).toBe(6);
    expect(total(samples, "gen_ai_client_token_usage_bucket", { ...p, gen_ai_token_type: "input", le: "4" })).toBe(0);
    expect(total(samples, "gen_ai_client_operation_duration_seconds_count", p)).toBe(6);
    expect(total(samples, "gen_ai_client_operation_duration_seconds_count", { gen_ai_provider_name: "flaky" })).toBe(1);
    expect(total(samples, "gen_ai_client_operation_duration_seconds_count", { gen_ai_provider_name: "down", error_type: "upstream_503" })).toBe(1);
    // Requests served (routed to a model; a refusal at the door is not a GenAI request).
    // gen_ai_provider_name (Required by the conventions) is the provider that answered: p for the fallback.
    expect(total(samples, "gen_ai_server_request_duration_seconds_count", { gen_ai_provider_name: "p", gen_ai_request_model: "p/m" })).toBe(4);
    expect(total(samples, "gen_ai_server_request_duration_seconds_count", { gen_ai_provider_name: "p", gen_ai_request_model: "fb" })).toBe(1);
    expect(total(samples, "gen_ai_server_request_duration_seconds_count", { gen_ai_provider_name: "down", gen_ai_request_model: "down/m", error_type: "upstream_503" })).toBe(1);
    expect(find(samples, "gen_ai_server_request_duration_seconds_count", { gen_ai_request_model: "p/m", error_type: "rate_limit_exceeded" })).toHaveLength(0);
    expect(find(samples, "gen_ai_server_request_duration_seconds_count").every((s) => s.labels.gen_ai_provider_name)).toBe(true);
    expect(total(samples, "gen_ai_server_time_to_first_token_seconds_count", { gen_ai_provider_name: "p", gen_ai_request_model: "p/m" })).toBe(1);
    // The tool: executed by the loop, and the MCP request to the server.
    expect(total(samples, "gen_ai_execute_tool_duration_seconds_count", { gen_ai_tool_name: "everything__echo", mcp_server: "everything" })).toBe(1);
    expect(total(samples, "mcp_client_operation_duration_seconds_count", { mcp_method_name: "tools/call", gen_ai_tool_name: "echo", mcp_server: "everything" })).toBe(1);
    expect(find(samples, "mcp_client_operation_duration_seconds_count", { error_type: "tool_error" })).toHaveLength(0);
    // MCP server state, read at scrape time; the store; the process.
    expect(total(samples, "mcp_gateway_mcp_server_state", { server: "everything", state: "ready" })).toBe(1);
    expect(total(samples, "mcp_gateway_mcp_server_state", { server: "everything", state: "failed" })).toBe(0);
    expect(total(samples, "mcp_gateway_mcp_server_tools", { server: "everything" })).toBeGreaterThan(5);
    expect(total(samples, "mcp_gateway_mcp_server_restarts_total", { server: "everything" })).toBe(0);
    expect(total(samples, "mcp_gateway_store_up", { kind: "memory" })).toBe(1);
    expect(find(samples, "process_cpu_seconds_total")).toHaveLength(1);
  });

  it("times the tool calls MCP clients send the gateway (/mcp), failed ones by error type", async () => {
    const { client } = await connectHttp(new URL(`${gw.url}/mcp`), { headers: { authorization: `Bearer ${ADMIN}` } });
    try {
      const upstream = (samples: Sample[], labels: Record<string, string>) => total(samples, "mcp_client_operation_duration_seconds_count", { mcp_server: "everything", ...labels });
      const before = (await scrape()).samples;
      const echoed = await client.callTool({ name: "everything__echo", arguments: { message: "door" } });
      expect(JSON.stringify(echoed.content)).toContain("door");
      await expect(client.callTool({ name: "nobody__nothing", arguments: {} })).rejects.toThrow(/Unknown tool|not/i);
      const bad = await client.callTool({ name: "everything__get-sum", arguments: { a: "not a number" } });
      expect(bad.isError).toBe(true);
      const { samples } = await scrape();
      const call = { mcp_method_name: "tools/call" };
      expect(total(samples, "mcp_server_operation_duration_seconds_count", { ...call, gen_ai_tool_name: "everything__echo" })).toBe(1);
      expect(find(samples, "mcp_server_operation_duration_seconds_count", { ...call, gen_ai_tool_name: "everything__echo", error_type: "tool_error" })).toHaveLength(0);
      // An unknown tool is a JSON-RPC error (InvalidParams: its code is the error type).
      expect(total(samples, "mcp_server_operation_duration_seconds_count", { ...call, gen_ai_tool_name: "nobody__nothing", error_type: "-32602" })).toBe(1);
      // Bad arguments: the upstream server's error result.
      const sum = find(samples, "mcp_server_operation_duration_seconds_count", { ...call, gen_ai_tool_name: "everything__get-sum" });
      expect(sum.map((s) => [s.labels.error_type, s.value])).toEqual([["tool_error", 1]]);
      // The calls forwarded upstream, timed as the MCP client's requests (the server's tool names).
      expect(upstream(samples, { ...call, gen_ai_tool_name: "echo" }) - upstream(before, { ...call, gen_ai_tool_name: "echo" })).toBe(1);
      expect(upstream(samples, { ...call, gen_ai_tool_name: "get-sum", error_type: "tool_error" }) - upstream(before, { ...call, gen_ai_tool_name: "get-sum", error_type: "tool_error" })).toBe(1);
    } finally {
      await client.close();
    }
  });

  it("times every MCP request forwarded upstream: resources, prompts, completion", async () => {
    const { client } = await connectHttp(new URL(`${gw.url}/mcp`), { headers: { authorization: `Bearer ${ADMIN}` } });
    try {
      const upstream = (samples: Sample[], method: string) => total(samples, "mcp_client_operation_duration_seconds_count", { mcp_method_name: method, mcp_server: "everything" });
      const before = (await scrape()).samples;
      const { resources } = await client.listResources();
      const doc = resources.find((r) => r.uri.startsWith("demo://resource/static/document/"));
      expect(doc).toBeDefined();
      expect((await client.readResource({ uri: doc!.uri })).contents).not.toHaveLength(0);
      expect((await client.getPrompt({ name: "everything__simple-prompt" })).messages).not.toHaveLength(0);
      const completed = await client.complete({ ref: { type: "ref/prompt", name: "everything__completable-prompt" }, argument: { name: "department", value: "Eng" } });
      expect(completed.completion.values).toEqual(["Engineering"]);
      await expect(client.readResource({ uri: "demo://resource/static/document/no-such-file" })).rejects.toThrow();
      const after = (await scrape()).samples;
      expect(upstream(after, "resources/list") - upstream(before, "resources/list")).toBeGreaterThanOrEqual(1);
      expect(upstream(after, "resources/read") - upstream(before, "resources/read")).toBe(2);
      expect(upstream(after, "prompts/get") - upstream(before, "prompts/get")).toBe(1);
      expect(upstream(after, "completion/complete") - upstream(before, "completion/complete")).toBe(1);
      // The unknown resource: the server's JSON-RPC error code is the error type.
      const failed = find(after, "mcp_client_operation_duration_seconds_count", { mcp_method_name: "resources/read", mcp_server: "everything" }).filter((s) => s.labels.error_type);
      expect(failed.map((s) => s.labels.error_type)).toEqual([expect.stringMatching(/^-32\d{3}$/)]);
    } finally {
      await client.close();
    }
  });

  it("needs a gateway key when keys are set, like /health's details", async () => {
    expect((await scrape(null)).status).toBe(401);
    expect((await scrape("wrong")).status).toBe(401);
    expect((await scrape(TEAM)).status).toBe(200);
  });
});

describe("GET /metrics switched off", () => {
  it("is not there with gateway.observability.metrics false, and the web view neither with ui false", async () => {
    const off = await startGateway({ mcpServers: {}, providers: { p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: "k" } }, gateway: { observability: { metrics: false, ui: false } } });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
      expect((await fetch(`${off.url}/ui`)).status).toBe(404);
      const answer = await fetch(`${off.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model: "p/m", messages: [{ role: "user", content: "hi" }] }) });
      expect(answer.status).toBe(200);
    } finally {
      await off.close();
    }
  });
});
