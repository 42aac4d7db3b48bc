/** Security properties of the OpenAI front door. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { sendJson } from "../helpers/fake-upstream.ts";

let upstream: ScriptedUpstream;
let open: RunningGateway; // no API keys: loopback-only Host/Origin
let keyed: RunningGateway; // API keys: any Host
const KEY_A = "key-a-1234567890";
const KEY_B = "key-b-1234567890";

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  const providers = { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-provider-secret-1" } };
  open = await startGateway({ providers, models: { narrow: { model: "fake/m", mcpServers: ["everything"] } }, gateway: { retries: { attempts: 1 } } });
  keyed = await startGateway({ providers, gateway: { apiKeys: [KEY_A, KEY_B], retries: { attempts: 1 } } });
});
afterAll(async () => {
  await open?.close();
  await keyed?.close();
  await upstream?.close();
});

/** A raw request with a forged Host header (fetch does not let us set Host). */
function withHost(url: string, path: string, host: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: body ? "POST" : "GET", headers: { host, "content-type": "application/json" } }, (res) => {
      let text = "";
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const chat = (extra: object = {}) => JSON.stringify({ model: "fake/m", messages: [{ role: "user", content: "hi" }], ...extra });

describe("DNS rebinding without API keys", () => {
  it("refuses a foreign Host or Origin on /v1 and /health, accepts loopback", async () => {
    upstream.script([{ text: "ok" }]);
    expect((await withHost(open.url, "/v1/chat/completions", "evil.example:4000", chat())).status).toBe(403);
    expect((await withHost(open.url, "/health", "evil.example")).status).toBe(403);
    const origin = await fetch(`${open.url}/v1/models`, { headers: { origin: "http://evil.example" } });
    expect(origin.status).toBe(403);
    expect(await origin.json()).toMatchObject({ error: { code: "origin_not_allowed" } });
    expect((await withHost(open.url, "/v1/models", "localhost:4000")).status).toBe(200);
  });

  it("with API keys the key is the guard: any Host passes once authenticated", async () => {
    const res = await new Promise<number>((resolve) => {
      const req = request(`${keyed.url}/v1/models`, { headers: { host: "gateway.example.com", authorization: `Bearer ${KEY_A}` } }, (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      });
      req.end();
    });
    expect(res).toBe(200);
  });
});

describe("/health", () => {
  it("shows only liveness without a key when keys are configured, details with one", async () => {
    expect(await (await fetch(`${keyed.url}/health`)).json()).toEqual({ status: "ok" });
    const full = (await (await fetch(`${keyed.url}/health`, { headers: { authorization: `Bearer ${KEY_A}` } })).json()) as { servers: unknown[] };
    expect(full.servers).toHaveLength(1);
  });
});

describe("errors keep their status when streaming", () => {
  it("an upstream failure before any output is an HTTP error, not a 200 stream", async () => {
    upstream.handle((_req, res) => sendJson(res, 429, { error: { message: "slow down", type: "rate_limit" } }, { "retry-after": "3" }));
    const res = await fetch(`${open.url}/v1/chat/completions`, { method: "POST", body: chat({ stream: true }) });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(await res.json()).toMatchObject({ error: { type: "rate_limit_error" } });
    upstream.script([{ text: "ok" }]);
  });

  it("an upstream key problem is a 502, never a 401 that blames the client's key", async () => {
    upstream.handle((_req, res) => sendJson(res, 401, { error: { message: "Incorrect API key provided: sk-provider-secret-1", type: "invalid_request_error" } }));
    const res = await fetch(`${open.url}/v1/chat/completions`, { method: "POST", body: chat() });
    const body = (await res.json()) as { error: { message: string } };
    expect(res.status).toBe(502);
    expect(body.error.message).not.toContain("sk-provider-secret-1"); // the provider key is never echoed
    upstream.script([{ text: "ok" }]);
  });
});

describe("x-mcp-servers", () => {
  it("cannot widen an alias's MCP servers", async () => {
    const res = await fetch(`${open.url}/v1/chat/completions`, { method: "POST", headers: { "x-mcp-servers": "everything,everything" }, body: JSON.stringify({ model: "narrow", messages: [{ role: "user", content: "hi" }] }) });
    expect(res.status).toBe(200); // duplicates are fine, and inside the alias's selection
  });
});

describe("hidden steps are scoped to the caller's key", () => {
  it("another key presenting the same tool-call ids does not get the stored steps", async () => {
    const weather = { type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } };
    upstream.script([{ calls: [{ id: "mcp_x", name: "everything__echo", arguments: { message: "private-to-A" } }, { id: "cli_x", name: "get_weather", arguments: {} }] }, { text: "done" }]);
    const headersA = { authorization: `Bearer ${KEY_A}` };
    const first = (await (await fetch(`${keyed.url}/v1/chat/completions`, { method: "POST", headers: headersA, body: chat({ tools: [weather] }) })).json()) as { choices: { message: unknown }[] };
    const followUp = (key: string) =>
      fetch(`${keyed.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: "fake/m", tools: [weather], messages: [{ role: "user", content: "hi" }, first.choices[0]!.message, { role: "tool", tool_call_id: "cli_x", content: "sunny" }] }),
      });
    await followUp(KEY_B);
    expect(JSON.stringify(upstream.chatRequests()[1]!.body.messages)).not.toContain("private-to-A");
    await followUp(KEY_A);
    expect(JSON.stringify(upstream.chatRequests()[2]!.body.messages)).toContain("private-to-A");
  });
});
