/**
 * Deployment cooldowns shared through Redis (a real redis-server): two gateway instances, one
 * alias with two deployments. A deployment cooled down by a failure instance A saw is skipped by
 * instance B, whose own round-robin would have sent it the next request: its upstream receives
 * nothing from B. With Redis gone, requests still succeed and each instance keeps the cooldowns
 * it knows. Everything on 127.0.0.1; nothing waits on wall-clock time.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sendJson } from "../helpers/fake-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let redis: RunningRedis;
let first: ScriptedUpstream;
let second: ScriptedUpstream;
let a: RunningGateway;
let b: RunningGateway;

beforeAll(async () => {
  redis = await startRedis();
  [first, second] = await Promise.all([startScriptedUpstream("openai", replies({ text: "from first" })), startScriptedUpstream("openai", replies({ text: "from second" }))]);
  const provider = (upstream: ScriptedUpstream) => ({ type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" });
  const config = {
    mcpServers: {},
    providers: { first: provider(first), second: provider(second) },
    models: {
      // Equal weights: each instance's round-robin starts with "first", then alternates.
      gpt: { deployments: [{ model: "first/m" }, { model: "second/m" }], cooldownMs: 600_000 },
    },
    gateway: { store: { redis: { url: redis.url, keyPrefix: "deployments-test:" } }, retries: { attempts: 1 } },
  };
  a = await startGateway(config);
  b = await startGateway(config);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await first?.close();
  await second?.close();
  await redis?.stop();
});

async function ask(gateway: RunningGateway): Promise<{ status: number; provider: string | undefined }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "gpt", messages: [{ role: "user", content: "hi" }] }),
  });
  const body = (await response.json()) as { mcp_gateway?: { provider: string } };
  return { status: response.status, provider: body.mcp_gateway?.provider };
}

describe("deployment cooldowns across instances", () => {
  it("a deployment cooled down by a failure seen on instance A is skipped by instance B", async () => {
    first.handle((_req, res) => sendJson(res, 503, { error: { message: "overloaded", type: "server_error" } }));
    // A: the round-robin picks "first", which fails (one attempt), is cooled down; "second" answers.
    expect(await ask(a)).toEqual({ status: 200, provider: "second" });
    expect(first.requests).toHaveLength(1);
    // B has never routed a request: its round-robin would pick "first". The shared cooldown says no.
    for (let i = 0; i < 6; i++) expect(await ask(b)).toEqual({ status: 200, provider: "second" });
    expect(first.requests).toHaveLength(1);
    expect(second.chatRequests()).toHaveLength(7);
  });

  it("with Redis gone, requests still succeed and each instance keeps the cooldowns it knows", async () => {
    await redis.stop();
    try {
      await vi.waitFor(() => expect(b.gateway.store.health().status).toBe("down"), { timeout: 15_000, interval: 20 });
      for (let i = 0; i < 4; i++) {
        expect(await ask(a)).toEqual({ status: 200, provider: "second" });
        expect(await ask(b)).toEqual({ status: 200, provider: "second" });
      }
      expect(first.requests).toHaveLength(1);
    } finally {
      await redis.start();
    }
  });
});
