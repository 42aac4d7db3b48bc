/**
 * Where the gateway keeps everything between requests: the hidden MCP steps, stored Responses
 * API responses, rate-limit counters. One backend per gateway — in memory (the default: one
 * process, nothing to install) or shared (Redis: many instances behind any load balancer) — with
 * a table per kind of state, each entry with a time to live and a size bound. Async on purpose:
 * the shared backend answers over the network.
 */
import { LRUCache } from "lru-cache";
import { GatewayError } from "../../core/index.ts";

export interface StateStore<T> {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T): Promise<void>;
  /**
   * Stores an entry given as its JSON text, as `set` would have made it: for a caller that has
   * most of the entry serialized already (the Responses door, the response it answered with).
   */
  setJson(key: string, json: string): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface TableLimits {
  /** Time to live of an entry, in ms. */
  ttlMs: number;
  /** An entry larger than this (bytes of its JSON) is not kept (the caller's fallback applies). */
  maxEntryBytes: number;
  /** In memory: entries and total bytes kept at most (least recently used evicted first). */
  maxEntries?: number;
  maxBytes?: number;
}

/** A counter in a fixed time window: its count after the addition, and when the window ends. */
export interface WindowCount {
  count: number;
  resetMs: number;
}

export interface Counters {
  /** Adds `amount` to the counter of `key` in its current window of `windowMs`. */
  add(key: string, amount: number, windowMs: number): Promise<WindowCount>;
  /** The counter's current count (0 for a window not started). */
  peek(key: string, windowMs: number): Promise<WindowCount>;
}

export interface StoreHealth {
  kind: "memory" | "redis";
  status: "ok" | "down";
  error?: string;
}

export interface StateBackend {
  readonly kind: StoreHealth["kind"];
  table<T extends object>(namespace: string, limits: TableLimits): StateStore<T>;
  readonly counters: Counters;
  health(): StoreHealth;
  close(): Promise<void>;
}

/** The failure of a shared store, as the requests that needed it see it: 503, try again soon. */
export function storeUnavailable(cause: unknown): GatewayError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new GatewayError(`The gateway's state store is unavailable (${reason}); try again shortly`, {
    status: 503,
    type: "api_error",
    code: "store_unavailable",
    retryable: true,
    retryAfterMs: 1000,
    cause,
  });
}

export interface MemoryStoreOptions {
  maxEntries?: number;
  maxBytes?: number;
  maxEntryBytes?: number;
  ttlMs?: number;
}

/**
 * Entries are kept as their JSON text, as Redis keeps them. A kept string is one flat block (a
 * stored response as objects is hundreds of them: a full store of ten thousand took 50–100 MB
 * more), its size is its byte length, and a read returns a copy, so both backends give the same
 * answers: a caller that changes what it stored, or what it read, changes nothing in the store.
 */
export class MemoryStore<T extends object> implements StateStore<T> {
  private readonly cache: LRUCache<string, string>;

  constructor(options: MemoryStoreOptions = {}) {
    this.cache = new LRUCache<string, string>({
      max: options.maxEntries ?? 10_000,
      maxSize: options.maxBytes ?? 64 * 1024 * 1024,
      ...(options.maxEntryBytes === undefined ? {} : { maxEntrySize: options.maxEntryBytes }),
      // Bytes, as the Redis backend counts them: the same entry is kept, or not, by both.
      sizeCalculation: (text) => Math.max(1, Buffer.byteLength(text)),
      ttl: options.ttlMs ?? 60 * 60 * 1000,
    });
  }

  async get(key: string): Promise<T | undefined> {
    const text = this.cache.get(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: T): Promise<void> {
    this.cache.set(key, JSON.stringify(value));
  }

  async setJson(key: string, json: string): Promise<void> {
    this.cache.set(key, json);
  }

  async delete(key: string): Promise<void> {
    this.cache.delete(key);
  }

  get size(): number {
    return this.cache.size;
  }
}

class MemoryCounters implements Counters {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  async add(key: string, amount: number, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += amount;
    return { count: window.count, resetMs: window.endsAt - now };
  }

  async peek(key: string, windowMs: number): Promise<WindowCount> {
    const now = Date.now();
    const window = this.windows.get(key);
    return window && window.endsAt > now ? { count: window.count, resetMs: window.endsAt - now } : { count: 0, resetMs: windowMs };
  }

  /** Ended windows go, a few at a time, so the map stays the size of the active keys. */
  private sweep(now: number): void {
    let checked = 0;
    for (const [key, window] of this.windows) {
      if (++checked > 16) break;
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }
}

/** The default backend: this process only. */
export class MemoryBackend implements StateBackend {
  readonly kind = "memory" as const;
  readonly counters: Counters = new MemoryCounters();

  table<T extends object>(_namespace: string, limits: TableLimits): StateStore<T> {
    return new MemoryStore<T>({ ttlMs: limits.ttlMs, maxEntryBytes: limits.maxEntryBytes, ...(limits.maxEntries ? { maxEntries: limits.maxEntries } : {}), ...(limits.maxBytes ? { maxBytes: limits.maxBytes } : {}) });
  }

  health(): StoreHealth {
    return { kind: "memory", status: "ok" };
  }

  async close(): Promise<void> {}
}
