import type { GatewayError } from "../../core/index.ts";
import { abortedError, upstreamTimeoutError } from "../http-error.ts";

/**
 * One AbortSignal for the SDK that fires when the caller aborts or when the upstream stays silent
 * for `idleMs`, remembering which it was. The SDK's own timeout ends when the response headers
 * arrive; without this, a stream that stalls afterwards would hang until the caller gives up.
 * The SDK ends its stream quietly on abort, so the adapter asks `interruption()` what happened.
 */
export class RequestGuard {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timedOut = false;
  private readonly onCallerAbort = (): void => this.controller.abort(this.caller?.reason);

  constructor(
    private readonly caller: AbortSignal | undefined,
    private readonly idleMs: number,
  ) {
    if (caller?.aborted) this.controller.abort(caller.reason);
    else caller?.addEventListener("abort", this.onCallerAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** (Re)starts the idle clock: call while waiting on the upstream. */
  arm(): void {
    this.pause();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.controller.abort();
    }, this.idleMs);
    this.timer.unref?.();
  }

  /** Stops the clock while the consumer, not the upstream, is the one being slow. */
  pause(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Why the request was cut short by us or the caller, if it was. The caller's abort wins. */
  interruption(provider: string, cause: unknown): GatewayError | undefined {
    if (this.caller?.aborted) return abortedError(provider, cause);
    if (this.timedOut) return upstreamTimeoutError(provider, cause);
    return undefined;
  }

  dispose(): void {
    this.pause();
    this.caller?.removeEventListener("abort", this.onCallerAbort);
  }
}
