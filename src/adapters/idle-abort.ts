import { requestAbortController } from "../core/abort-controller.ts";
import type { GatewayError } from "../core/index.ts";
import { abortedError, upstreamTimeoutError } from "./http-error.ts";

/**
 * The abort signal handed to a provider SDK for one call: it fires when the caller aborts, or
 * when the upstream stays silent longer than `idleMs` while the clock runs. The SDKs' own
 * timeout ends when the response headers arrive; without this, a stream that stalls afterwards
 * would hang until the caller gives up. The SDKs end an aborted stream quietly (or with a generic
 * error), so the adapter asks `interruption()` which of the two happened.
 *
 * The timer is unref()'d: an idle clock alone never keeps the process alive (the open upstream
 * socket does, for as long as the call is really in flight).
 */
export class IdleAbort {
  /** A light one on Node 20 (src/core/abort-controller.ts): one per streamed call. */
  private readonly controller = requestAbortController();
  /** One timer per call, re-armed with refresh(): a new timer per chunk was measurable. */
  private timer: NodeJS.Timeout | undefined;
  private waiting = false;
  private timedOut = false;

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

  /** (Re)starts the idle clock: call whenever the call starts waiting on the upstream. */
  arm(): void {
    this.waiting = true;
    if (this.timer) {
      this.timer.refresh();
      return;
    }
    this.timer = setTimeout(this.onIdle, this.idleMs);
    this.timer.unref();
  }

  /** Stops the clock while the consumer, not the upstream, is the one being slow. */
  pause(): void {
    this.waiting = false;
  }

  /** Why the call was cut short by the caller or by the idle clock, if it was. The caller's abort wins. */
  interruption(provider: string, cause: unknown): GatewayError | undefined {
    if (this.caller?.aborted) return abortedError(provider, cause);
    if (this.timedOut) return upstreamTimeoutError(provider, cause);
    return undefined;
  }

  dispose(): void {
    this.waiting = false;
    clearTimeout(this.timer);
    this.caller?.removeEventListener("abort", this.onCallerAbort);
  }

  private readonly onCallerAbort = (): void => this.controller.abort(this.caller?.reason);

  private readonly onIdle = (): void => {
    if (!this.waiting) return; // paused: the next arm() refreshes the clock
    this.timedOut = true;
    this.controller.abort();
  };
}
