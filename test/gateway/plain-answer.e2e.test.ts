/**
 * A door's whole answer leaves with plain headers (src/gateway/http/request-id.ts `answerWithIds`):
 * through the real gateway on its real Node server, the head is the one the in-process app
 * (`app.request()`) answers with — the request id, Anthropic's request-id on its door, CORS and a
 * key's rate limits added by the middlewares after the handler — and without those middlewares
 * the ids are still there, the body intact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";
import { createGateway, type Gateway } from "../../src/gateway/runtime.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { DOORS } from "../helpers/sse-doors.ts";

const KEY = "plain-answer-key-0001";
const ORIGIN = "http://app.example";
/** Added by Node's HTTP server to every answer it writes (not by the app). */
const NODE_ADDED = new Set(["date", "keep-alive", "connection", "content-length"]);
/** Key-limit headers whose values move between two requests (the counters, the time left). */
const MOVING = /^x-ratelimit-(remaining|reset)-/;

let upstream: ScriptedUpstream;
const started: { gateway: Gateway; server: Listening }[] = [];

async function gatewayWith(gatewaySection: Record<string, unknown>): Promise<{ gateway: Gateway; server: Listening }> {
  const config = resolveConfig({ mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } }, gateway: { retries: { attempts: 1 }, ...gatewaySection } }, {});
  const gateway = await createGateway(config, { logger: silentLogger() });
  const server = await listen(gateway.app, "127.0.0.1", 0);
  started.push({ gateway, server });
  return { gateway, server };
}

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
});

afterAll(async () => {
  for (const { gateway, server } of started) {
    await server.close(200);
    await gateway.close();
  }
  await upstream?.close();
});

const whole = (body: Record<string, unknown>) => JSON.stringify({ ...body, stream: false });
const appHeaders = (headers: Headers) => Object.fromEntries([...headers].filter(([name]) => !NODE_ADDED.has(name)));

describe.each(DOORS)("a whole answer on %s", (path, door) => {
  it("through the Node server with CORS and a key's limits: the head the in-process app makes", async () => {
    const { gateway, server } = await gatewayWith({ apiKeys: [{ key: KEY, name: "limited", rpm: 1000, tpm: 10_000_000 }], cors: { allowedOrigins: [ORIGIN] } });
    const headers = { "content-type": "application/json", authorization: `Bearer ${KEY}`, origin: ORIGIN, "x-request-id": "plain-1" };
    upstream.script([{ text: "A whole answer." }]);
    const response = await fetch(`${server.url}${path}`, { method: "POST", headers, body: whole(door.body("fake/m")) });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    const viaNode = appHeaders(response.headers);
    expect(viaNode["content-type"]).toBe("application/json");
    expect(viaNode["x-request-id"]).toBe("plain-1");
    expect(viaNode["request-id"]).toBe(path === "/v1/messages" ? "plain-1" : undefined);
    expect(viaNode["x-mcp-gateway-stop-reason"]).toBe("stop");
    expect(viaNode["access-control-allow-origin"]).toBe(ORIGIN);
    expect(viaNode["x-ratelimit-limit-requests"]).toBe("1000");
    expect(Number(response.headers.get("content-length"))).toBe(Buffer.byteLength(body));
    expect(body).toContain("A whole answer.");

    upstream.script([{ text: "A whole answer." }]);
    const inProcess = await gateway.app.request(path, { method: "POST", headers, body: whole(door.body("fake/m")) });
    expect(await inProcess.text()).toContain("A whole answer.");
    const expected = appHeaders(inProcess.headers);
    expect(Object.keys(viaNode).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, value] of Object.entries(expected)) if (!MOVING.test(name)) expect([name, viaNode[name]]).toEqual([name, value]);
  });

  it("through the Node server with no middleware after the handler: the ids are in the plain head", async () => {
    const { server } = await gatewayWith({});
    upstream.script([{ text: "Plain." }]);
    const response = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: whole(door.body("fake/m")) });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    const id = response.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get("request-id")).toBe(path === "/v1/messages" ? id : null);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(JSON.stringify(JSON.parse(body))).toBe(body);
  });
});
