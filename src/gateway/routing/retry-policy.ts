/**
 * When and how long to wait before retrying an upstream call: exponential backoff with full
 * jitter, the provider's retry-after honoured, bounded by attempts and by a total time budget.
 */
import type { GatewayError } from "../../core/index.ts";

import { DEFAULTS } from "../../core/config/index.ts";

export interface RetryPolicy {
  /** Attempts per provider, the first included. */
  attempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** Total time a request may spend waiting between attempts (all providers together). */
  budgetMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = DEFAULTS.retries;

/** The delay before attempt `attempt + 1`, or undefined when the error should not be retried. */
export function retryDelay(error: GatewayError, attempt: number, policy: RetryPolicy, random: () => number = Math.random): number | undefined {
  if (!error.retryable || attempt >= policy.attempts) return undefined;
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 1));
  return Math.round(random() * ceiling);
}

/** Whether a failure of one provider is a reason to try the next one in the fallback list. */
export function shouldFallBack(error: GatewayError): boolean {
  if (error.code === "request_aborted" || error.code === "client_closed") return false;
  // The request itself is wrong: another provider would refuse it too.
  if (error.status === 400 || error.status === 413 || error.status === 422) return false;
  return true;
}

/** Waits `ms`, or rejects as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
