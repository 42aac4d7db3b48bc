/**
 * What the transport's two undici handlers (./whole-answer.ts, ./streamed-answer.ts) share: the
 * caller's signal aborts the request at any time, as undici's `request` does with its `signal`
 * option, and lets go of the signal once the answer has ended or failed.
 */
import type { Dispatcher } from "undici";

export abstract class AbortableHandler implements Dispatcher.DispatchHandler {
  protected controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort: (() => void) | undefined;

  constructor(protected readonly signal: AbortSignal | undefined) {
    if (signal) {
      this.onAbort = () => this.controller?.abort(abortReason(signal));
      signal.addEventListener("abort", this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Called again when undici retries the request on a fresh connection.
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(abortReason(this.signal));
  }

  protected stopListening(): void {
    if (this.onAbort) this.signal!.removeEventListener("abort", this.onAbort);
  }
}

/** What a request is aborted (and its promise rejected) with when the caller's signal fires: its reason. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException("This operation was aborted", "AbortError");
}
