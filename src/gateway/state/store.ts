/**
 * The small key-value stores the gateway keeps between requests (hidden MCP steps, provider
 * reasoning data). Async on purpose: a shared implementation (Redis) fits the same interface
 * when several gateway instances run behind a load balancer.
 */
import { LRUCache } from "lru-cache";

export interface StateStore<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface MemoryStoreOptions {
  /** Entries kept at most (least recently used evicted first). */
  maxEntries?: number;
  /** Total size bound, in bytes of the entries' JSON. */
  maxBytes?: number;
  /** Time to live of an entry, in ms. */
  ttlMs?: number;
}

const sizes = new WeakMap<object, number>();

function sizeOf(value: object): number {
  let size = sizes.get(value);
  if (size === undefined) {
    size = Math.max(1, JSON.stringify(value).length);
    sizes.set(value, size);
  }
  return size;
}

export class MemoryStore<T extends object> implements StateStore<T> {
  private readonly cache: LRUCache<string, T>;

  constructor(options: MemoryStoreOptions = {}) {
    this.cache = new LRUCache<string, T>({
      max: options.maxEntries ?? 10_000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      // One entry may be stored under several keys (hidden steps: one per client tool call):
      // its size is computed once, not once per key.
      sizeCalculation: (value) => sizeOf(value),
      ttl: options.ttlMs ?? 60 * 60 * 1000,
    });
  }

  async get(key: string): Promise<T | undefined> {
    return this.cache.get(key);
  }

  async set(key: string, value: T): Promise<void> {
    this.cache.set(key, value);
  }

  async delete(key: string): Promise<void> {
    this.cache.delete(key);
  }

  get size(): number {
    return this.cache.size;
  }
}
