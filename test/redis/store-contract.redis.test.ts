/**
 * The state store's contract, run against both backends: the in-memory one and Redis (a real
 * redis-server). Tables keep JSON entries with a TTL and a size bound; counters count in fixed
 * windows; a Redis that goes away makes commands fail at once with a 503 (never a hang), and the
 * backend recovers by itself when it comes back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/logger.ts";
import { GatewayError } from "../../src/core/index.ts";
import { RedisBackend } from "../../src/gateway/state/redis-store.ts";
import { MemoryBackend, type StateBackend } from "../../src/gateway/state/store.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";

let redis: RunningRedis;
let backend: RedisBackend;

beforeAll(async () => {
  redis = await startRedis();
  backend = new RedisBackend({ url: redis.url, keyPrefix: `contract-${process.pid}:` }, silentLogger());
  await backend.connected();
});
afterAll(async () => {
  await backend?.close();
  await redis?.stop();
});

const limits = { ttlMs: 60_000, maxEntryBytes: 10_000 };

describe.each<[string, () => StateBackend]>([
  ["memory", () => new MemoryBackend()],
  ["redis", () => backend],
])("the %s store", (_name, make) => {
  it("keeps JSON entries by key, per table, and deletes them", async () => {
    const store = make();
    const a = store.table<{ messages: unknown[] }>("a", limits);
    const b = store.table<{ messages: unknown[] }>("b", limits);
    const key = `k-${Math.random()}`;
    await a.set(key, { messages: [{ role: "user", content: [{ type: "text", text: "héllo" }] }] });
    expect(await a.get(key)).toEqual({ messages: [{ role: "user", content: [{ type: "text", text: "héllo" }] }] });
    expect(await a.get(`${key}-other`)).toBeUndefined();
    await a.delete(key);
    expect(await a.get(key)).toBeUndefined();
    expect(await b.get(key)).toBeUndefined();
  });

  it("forgets entries after their TTL", async () => {
    const table = make().table<{ v: number }>("ttl", { ttlMs: 50, maxEntryBytes: 100 });
    const key = `t-${Math.random()}`;
    await table.set(key, { v: 1 });
    expect(await table.get(key)).toEqual({ v: 1 });
    // Observed, not slept on: poll until it is gone (bounded).
    const deadline = Date.now() + 2000;
    while ((await table.get(key)) !== undefined && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
    expect(await table.get(key)).toBeUndefined();
  });

  it("does not keep an entry over its size bound", async () => {
    const table = make().table<{ text: string }>("big", { ttlMs: 60_000, maxEntryBytes: 100 });
    await table.set("big", { text: "x".repeat(500) });
    expect(await table.get("big")).toBeUndefined();
  });

  it("keeps an entry given as its JSON text as set() keeps the object, with the same size bound", async () => {
    const table = make().table<{ text: string; n: number }>("json", { ttlMs: 60_000, maxEntryBytes: 100 });
    const key = `j-${Math.random()}`;
    await table.setJson(key, JSON.stringify({ text: "héllo", n: 1 }));
    expect(await table.get(key)).toEqual({ text: "héllo", n: 1 });
    await table.setJson(`${key}-big`, JSON.stringify({ text: "x".repeat(500), n: 2 }));
    expect(await table.get(`${key}-big`)).toBeUndefined();
  });

  it("counts in fixed windows, shared by every caller", async () => {
    const counters = make().counters;
    const key = `c-${Math.random()}`;
    expect(await counters.peek(key, 60_000)).toMatchObject({ count: 0 });
    expect((await counters.add(key, 1, 60_000)).count).toBe(1);
    const second = await counters.add(key, 5, 60_000);
    expect(second.count).toBe(6);
    expect(second.resetMs).toBeGreaterThan(0);
    expect(second.resetMs).toBeLessThanOrEqual(60_000);
    expect((await counters.peek(key, 60_000)).count).toBe(6);
  });
});

describe("Redis going away", () => {
  it("fails fast with a 503 while down, shows it in health, and recovers on its own", async () => {
    const own = await startRedis();
    const store = new RedisBackend({ url: own.url }, silentLogger());
    try {
      await store.connected();
      const table = store.table<{ v: number }>("x", limits);
      await table.set("k", { v: 1 });
      await own.stop();
      const started = Date.now();
      const error = await table.get("k").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 503, code: "store_unavailable", retryAfterMs: 1000 });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(store.health()).toMatchObject({ kind: "redis", status: "down" });
      await own.start();
      await store.connected(10_000);
      expect(store.health()).toEqual({ kind: "redis", status: "ok" });
      // No persistence: the old entry is gone, but the store works again.
      await table.set("k", { v: 2 });
      expect(await table.get("k")).toEqual({ v: 2 });
    } finally {
      await store.close();
      await own.stop();
    }
  });
});
