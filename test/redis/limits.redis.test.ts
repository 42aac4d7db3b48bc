/**
 * Key limits shared through one Redis (a real redis-server) by two gateway instances: a key's
 * rpm lets exactly that many requests through across both, its tpm counts the tokens reported
 * to either; with Redis gone the limits fail open (requests go on, without the headers).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { RedisBackend } from "../../src/gateway/state/redis-store.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const RPM_KEY = "shared-rpm-key-1";
const TPM_KEY = "shared-tpm-key-2";

let redis: RunningRedis;
let upstream: ScriptedUpstream;
let a: RunningGateway;
let b: RunningGateway;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream("openai");
  const config = {
    mcpServers: {},
    providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
    gateway: {
      apiKeys: [
        { key: RPM_KEY, name: "shared-rpm", rpm: 5 },
        { key: TPM_KEY, name: "shared-tpm", tpm: 30 },
      ],
      store: { redis: { url: redis.url, keyPrefix: "limits-test:" } },
      retries: { attempts: 1 },
    },
  };
  a = await startGateway(config);
  b = await startGateway(config);
  // Until connected, limits fail open (as while Redis is down): the test starts from connected.
  await Promise.all([a, b].map((gateway) => (gateway.gateway.store as RedisBackend).connected()));
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await upstream?.close();
  await redis?.stop();
});

const chat = (gateway: RunningGateway, key: string, door: "chat" | "messages" = "chat") =>
  fetch(`${gateway.url}${door === "chat" ? "/v1/chat/completions" : "/v1/messages"}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: "p/m", max_tokens: 20, messages: [{ role: "user", content: "hi" }] }),
  });

describe("limits shared by two instances through Redis", () => {
  it("a shared rpm lets exactly the allowed number through across both instances", async () => {
    upstream.script([{ text: "ok" }]);
    // Twelve requests at once, alternating between the instances; rpm is 5.
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => chat(i % 2 === 0 ? a : b, RPM_KEY)));
    await Promise.all(responses.map((r) => r.arrayBuffer()));
    const ok = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(refused).toHaveLength(7);
    expect(upstream.chatRequests()).toHaveLength(5);
    // Each admitted request saw its own place in the shared count.
    expect(ok.map((r) => r.headers.get("x-ratelimit-remaining-requests")).sort()).toEqual(["0", "1", "2", "3", "4"]);
    for (const r of refused) {
      expect(r.headers.get("x-ratelimit-remaining-requests")).toBe("0");
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    // Both instances answered and refused.
    expect(new Set(responses.map((r, i) => `${i % 2}:${r.status}`)).size).toBe(4);
  });

  it("tokens reported to one instance count on the other", async () => {
    upstream.script([{ text: "ok" }]);
    expect((await chat(a, TPM_KEY)).status).toBe(200); // 18 tokens
    const second = await chat(b, TPM_KEY, "messages");
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe("12"); // 36 now
    const third = await chat(a, TPM_KEY);
    expect(third.status).toBe(429);
    expect(third.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
  });

  it("fails open while Redis is down, and limits again once it is back", async () => {
    upstream.script([{ text: "ok" }]);
    await redis.stop();
    try {
      await vi.waitFor(() => expect(a.gateway.store.health().status).toBe("down"), { timeout: 15_000, interval: 20 });
      // Over its limit in Redis, but Redis cannot say so: the request goes on, without headers.
      const response = await chat(a, RPM_KEY);
      expect(response.status).toBe(200);
      expect(response.headers.get("x-ratelimit-limit-requests")).toBeNull();
    } finally {
      await redis.start();
    }
    await vi.waitFor(() => expect(a.gateway.store.health().status).toBe("ok"), { timeout: 15_000, interval: 20 });
    // A fresh Redis (no persistence): the window starts again, counted and with headers.
    const again = await chat(a, RPM_KEY);
    expect(again.status).toBe(200);
    expect(again.headers.get("x-ratelimit-remaining-requests")).toBe("4");
  });
});
