/**
 * Per-key limits (`rpm`, `tpm` of a `gateway.apiKeys` entry), shared by every instance: the
 * counters live in the state store (fixed one-minute windows; in Redis one INCRBY per request,
 * so N instances together let exactly `rpm` requests through). A request over a limit is a 429
 * with `retry-after`; every answer to a key with limits carries OpenAI's `x-ratelimit-*`
 * headers. Tokens are counted from the usage the providers report, after the request: a request
 * is refused while the key's window is at or over `tpm`.
 *
 * The store down: limits fail open (the request goes on, without the headers) and a warning is
 * logged (at most every few seconds), since a request that needs no stored state must not fail
 * because of it.
 */
import { GatewayError, type Usage } from "../../core/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { Counters, WindowCount } from "../state/store.ts";
import { keyId, type KeyPolicy } from "./keys.ts";

const WINDOW_MS = 60_000;
/** How often the "limits are not enforced" warning is repeated while the store is down. */
const WARN_EVERY_MS = 10_000;

export interface Admission {
  /** Set when the request is over a limit: a 429 with retry-after. */
  refused?: GatewayError;
  /** `x-ratelimit-*` headers for the answer (none when the store could not be read). */
  headers: Record<string, string>;
}

/**
 * A duration the way OpenAI writes its reset headers (Go's format): `120ms`, `1s`, `8.64s`,
 * `6m0s`, `1h2m3s`.
 */
export function openAiDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const seconds = (total % 60_000) / 1000;
  const secondsText = `${Number.isInteger(seconds) ? seconds : Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}

function limitHeaders(kind: "requests" | "tokens", limit: number, window: WindowCount): Record<string, string> {
  return {
    [`x-ratelimit-limit-${kind}`]: String(limit),
    [`x-ratelimit-remaining-${kind}`]: String(Math.max(0, limit - window.count)),
    [`x-ratelimit-reset-${kind}`]: openAiDuration(window.resetMs),
  };
}

export class KeyLimits {
  private lastWarning = 0;

  constructor(
    private readonly counters: Counters,
    private readonly logger: Logger,
  ) {}

  private counter(policy: KeyPolicy, kind: "rpm" | "tpm"): string {
    return `key:${keyId(policy)}:${kind}`;
  }

  /**
   * Checks a key's limits for one request: `count` adds it to the key's requests (the routes
   * that call a model), otherwise the counters are only read (for the headers). Every request
   * counted is counted, refused ones too.
   */
  async admit(policy: KeyPolicy, count: boolean): Promise<Admission> {
    const { rpm, tpm } = policy;
    let requests: WindowCount | undefined;
    let tokens: WindowCount | undefined;
    try {
      [requests, tokens] = await Promise.all([
        rpm === undefined ? undefined : count ? this.counters.add(this.counter(policy, "rpm"), 1, WINDOW_MS) : this.counters.peek(this.counter(policy, "rpm"), WINDOW_MS),
        tpm === undefined ? undefined : this.counters.peek(this.counter(policy, "tpm"), WINDOW_MS),
      ]);
    } catch (error) {
      this.failOpen(policy, error);
      return { headers: {} };
    }
    const headers = {
      ...(rpm !== undefined && requests ? limitHeaders("requests", rpm, requests) : {}),
      ...(tpm !== undefined && tokens ? limitHeaders("tokens", tpm, tokens) : {}),
    };
    if (!count) return { headers };
    const over: string[] = [];
    let waitMs = 0;
    if (rpm !== undefined && requests && requests.count > rpm) {
      over.push(`${rpm} requests per minute`);
      waitMs = Math.max(waitMs, requests.resetMs);
    }
    if (tpm !== undefined && tokens && tokens.count >= tpm) {
      over.push(`${tpm} tokens per minute`);
      waitMs = Math.max(waitMs, tokens.resetMs);
    }
    if (over.length === 0) return { headers };
    const retryAfterMs = Math.max(1000, waitMs);
    const refused = new GatewayError(`Rate limit reached for the API key "${policy.name}": ${over.join(" and ")}; retry in ${Math.ceil(retryAfterMs / 1000)} s`, {
      status: 429,
      type: "rate_limit_error",
      code: "rate_limit_exceeded",
      retryAfterMs,
    });
    return { refused, headers };
  }

  /**
   * Adds the tokens a request used (input + output, as reported) to the key's minute window; no
   * promise when there is nothing to count (a key without `tpm`, no key).
   */
  record(policy: KeyPolicy | undefined, usage: Usage | undefined): Promise<void> | undefined {
    if (policy?.tpm === undefined || !usage) return undefined;
    const tokens = (usage.inputTokens || 0) + (usage.outputTokens || 0);
    if (tokens <= 0) return undefined;
    return this.count(policy, tokens);
  }

  private async count(policy: KeyPolicy, tokens: number): Promise<void> {
    try {
      await this.counters.add(this.counter(policy, "tpm"), tokens, WINDOW_MS);
    } catch (error) {
      this.failOpen(policy, error);
    }
  }

  private failOpen(policy: KeyPolicy, error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.logger.warn({ key: policy.name, err: error instanceof Error ? error.message : String(error) }, "key limits not enforced: the state store is unavailable (failing open)");
  }
}
