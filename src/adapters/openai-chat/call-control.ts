import type { EndState } from "./errors.ts";

/**
 * The abort signal handed to the SDK for one call: it fires when the caller aborts, or when a
 * stream stays silent longer than the idle limit. The SDK's own timeout stops at the response
 * headers, so without this a stalled stream would hang forever. It remembers which of the two
 * happened, because the SDK ends an aborted stream silently.
 */
export class CallControl implements EndState {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  idleTimedOut = false;

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

  get callerAborted(): boolean {
    return this.caller?.aborted === true;
  }

  /** (Re)starts the idle clock; call on every chunk received. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onIdle, this.idleMs);
  }

  /** Stops the idle clock (while the consumer, not the upstream, is busy). */
  pause(): void {
    clearTimeout(this.timer);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener("abort", this.onCallerAbort);
  }

  private readonly onCallerAbort = (): void => this.controller.abort(this.caller?.reason);

  private readonly onIdle = (): void => {
    this.idleTimedOut = true;
    this.controller.abort();
  };
}
