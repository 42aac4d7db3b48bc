/**
 * The store's metrics with a real Redis: mcp_gateway_store_up follows the connection, and each
 * failed store operation while Redis is down is counted in mcp_gateway_store_errors_total by table
 * and operation (a Responses follow-up that cannot read its previous response: 503).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import OpenAI from "openai";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { parseExposition, total } from "../helpers/prometheus.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let redis: RunningRedis;
let upstream: ScriptedUpstream;
let gw: RunningGateway;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({
    mcpServers: {},
    providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
    gateway: { store: { redis: { url: redis.url, keyPrefix: "metrics-test:" } }, retries: { attempts: 1 } },
  });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await redis?.stop();
});

async function samples() {
  return parseExposition(await (await fetch(`${gw.url}/metrics`)).text());
}

describe("store metrics (Redis)", () => {
  it("store_up follows the connection; failed operations are counted by table and operation", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    upstream.script(replies({ text: "Stored." }));
    const stored = await openai.responses.create({ model: "p/m", input: "Remember this" });
    let now = await samples();
    expect(total(now, "mcp_gateway_store_up", { kind: "redis" })).toBe(1);
    expect(total(now, "mcp_gateway_store_errors_total")).toBe(0);

    await redis.stop();
    await vi.waitFor(async () => expect(total(await samples(), "mcp_gateway_store_up", { kind: "redis" })).toBe(0), { timeout: 10_000, interval: 20 });
    const refused = await openai.responses.create({ model: "p/m", previous_response_id: stored.id, input: "More" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 503 });
    now = await samples();
    expect(total(now, "mcp_gateway_store_errors_total", { table: "responses", operation: "get" })).toBe(1);

    await redis.start();
    await vi.waitFor(async () => expect(total(await samples(), "mcp_gateway_store_up", { kind: "redis" })).toBe(1), { timeout: 15_000, interval: 50 });
  });
});
