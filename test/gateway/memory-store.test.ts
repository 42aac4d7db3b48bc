/**
 * The in-memory store keeps each entry as its JSON, as Redis does (the contract both share is in
 * test/redis/store-contract.redis.test.ts): what a caller does to an object after storing it, or
 * after reading it, never reaches the store, and the size bound counts bytes.
 */
import { describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/gateway/state/store.ts";

interface Entry {
  items: string[];
}

describe("MemoryStore", () => {
  it("keeps what was stored, whatever the caller does to its object afterwards", async () => {
    const store = new MemoryStore<Entry>();
    const entry = { items: ["a"] };
    await store.set("k", entry);
    entry.items.push("changed after set");
    const read = await store.get("k");
    expect(read).toEqual({ items: ["a"] });
    read!.items.push("changed after get");
    expect(await store.get("k")).toEqual({ items: ["a"] });
  });

  it("keeps one entry under several keys set in one go, and a changed value set again later as changed", async () => {
    const store = new MemoryStore<Entry>();
    const entry = { items: ["first"] };
    await Promise.all(["k1", "k2", "k3"].map((key) => store.set(key, entry)));
    expect(await Promise.all(["k1", "k2", "k3"].map((key) => store.get(key)))).toEqual([{ items: ["first"] }, { items: ["first"] }, { items: ["first"] }]);
    entry.items[0] = "second";
    await store.set("k2", entry);
    expect(await store.get("k1")).toEqual({ items: ["first"] });
    expect(await store.get("k2")).toEqual({ items: ["second"] });
  });

  it("bounds an entry by the bytes of its JSON, as the Redis backend does", async () => {
    // {"items":["éééé…"]}: 14 bytes of JSON around the text; "é" is 2 bytes in UTF-8, 1 unit in a JS string.
    const store = new MemoryStore<Entry>({ maxEntryBytes: 14 + 2 * 40 });
    await store.set("fits", { items: ["é".repeat(40)] });
    await store.set("too-big", { items: ["é".repeat(41)] });
    expect(await store.get("fits")).toEqual({ items: ["é".repeat(40)] });
    expect(await store.get("too-big")).toBeUndefined();
  });

  it("evicts the least recently used entry past its byte budget", async () => {
    const store = new MemoryStore<Entry>({ maxBytes: 100 });
    await store.set("old", { items: ["x".repeat(40)] });
    await store.set("new", { items: ["y".repeat(40)] });
    expect(store.size).toBe(1);
    expect(await store.get("old")).toBeUndefined();
    expect(await store.get("new")).toEqual({ items: ["y".repeat(40)] });
  });
});
