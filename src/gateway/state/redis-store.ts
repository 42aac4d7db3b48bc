/**
 * The shared backend: Redis (ioredis), so N gateway instances behind any load balancer see the
 * same hidden steps, stored responses and limit counters. Entries are JSON with a TTL (SET … PX);
 * counters are fixed windows (INCRBY, and PEXPIRE NX when the window starts).
 *
 * Redis down or slow never hangs a request: commands fail at once while disconnected (no offline
 * queue) and time out after `commandTimeoutMs`; each failure is a 503 with retry-after for the
 * callers that need the state (the others degrade, see their files). The client reconnects by
 * itself, and `/health` shows the store's state.
 */
import { Redis } from "ioredis";
import type { Logger } from "../../core/logger.ts";
import { storeUnavailable, type Counters, type StateBackend, type StateStore, type StoreHealth, type TableLimits, type WindowCount } from "./store.ts";

export interface RedisOptions {
  url: string;
  /** Put before every key, so several gateways (or other apps) can share one Redis. */
  keyPrefix?: string;
  /** How long one command may take before the request that needs it fails. */
  commandTimeoutMs?: number;
}

const DEFAULT_PREFIX = "mcp-gateway:";

class RedisTable<T extends object> implements StateStore<T> {
  constructor(
    private readonly backend: RedisBackend,
    private readonly namespace: string,
    private readonly limits: TableLimits,
  ) {}

  async get(key: string): Promise<T | undefined> {
    const text = await this.backend.run((redis) => redis.get(`${this.namespace}:${key}`));
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: T): Promise<void> {
    await this.setJson(key, JSON.stringify(value));
  }

  async setJson(key: string, json: string): Promise<void> {
    // Too big to keep: as if it had expired (each caller knows what to do without it).
    if (Buffer.byteLength(json) > this.limits.maxEntryBytes) return;
    await this.backend.run((redis) => redis.set(`${this.namespace}:${key}`, json, "PX", this.limits.ttlMs));
  }

  async delete(key: string): Promise<void> {
    await this.backend.run((redis) => redis.del(`${this.namespace}:${key}`));
  }
}

class RedisCounters implements Counters {
  constructor(private readonly backend: RedisBackend) {}

  async add(key: string, amount: number, windowMs: number): Promise<WindowCount> {
    const results = await this.backend.run((redis) => redis.multi().incrby(`counter:${key}`, amount).pexpire(`counter:${key}`, windowMs, "NX").pttl(`counter:${key}`).exec());
    const count = Number(results?.[0]?.[1] ?? 0);
    const ttl = Number(results?.[2]?.[1] ?? windowMs);
    return { count, resetMs: ttl > 0 ? ttl : windowMs };
  }

  async peek(key: string, windowMs: number): Promise<WindowCount> {
    const results = await this.backend.run((redis) => redis.multi().get(`counter:${key}`).pttl(`counter:${key}`).exec());
    const count = Number(results?.[0]?.[1] ?? 0);
    const ttl = Number(results?.[1]?.[1] ?? -2);
    return ttl > 0 ? { count, resetMs: ttl } : { count: 0, resetMs: windowMs };
  }
}

export class RedisBackend implements StateBackend {
  readonly kind = "redis" as const;
  readonly counters: Counters;
  private readonly redis: Redis;
  private lastError: string | undefined;
  private ready = false;
  private closing = false;

  constructor(options: RedisOptions, logger: Logger) {
    this.redis = new Redis(options.url, {
      keyPrefix: options.keyPrefix ?? DEFAULT_PREFIX,
      // Fail at once while disconnected, instead of queueing requests behind a dead server.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.commandTimeoutMs ?? 1000,
      connectTimeout: 2000,
      // Reconnect for ever, quickly at first, then every 2 s.
      retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
      enableAutoPipelining: true,
      lazyConnect: false,
    });
    this.redis.on("ready", () => {
      if (!this.ready) logger.info({ store: "redis" }, "state store connected");
      this.ready = true;
      this.lastError = undefined;
    });
    this.redis.on("error", (error: Error) => {
      if (this.ready || this.lastError !== error.message) logger.warn({ store: "redis", err: error.message }, "state store unavailable; reconnecting");
      this.ready = false;
      this.lastError = error.message;
    });
    this.redis.on("close", () => {
      this.ready = false;
    });
    this.counters = new RedisCounters(this);
  }

  table<T extends object>(namespace: string, limits: TableLimits): StateStore<T> {
    return new RedisTable<T>(this, namespace, limits);
  }

  /** Runs one command; any failure is the store being unavailable (a 503 for whoever needs it). */
  async run<R>(command: (redis: Redis) => Promise<R>): Promise<R> {
    try {
      return await command(this.redis);
    } catch (error) {
      throw storeUnavailable(error);
    }
  }

  /** Resolves once connected (for tests and `check`); rejects after `timeoutMs`. */
  async connected(timeoutMs = 5000): Promise<void> {
    if (this.redis.status === "ready") return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms (${this.lastError ?? "no answer"})`)), timeoutMs);
      this.redis.once("ready", () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  health(): StoreHealth {
    return this.redis.status === "ready" ? { kind: "redis", status: "ok" } : { kind: "redis", status: "down", error: this.lastError ?? `connection ${this.redis.status}` };
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
