/**
 * Abort controllers for a request's own work that cost what a small object costs on Node 20.
 *
 * Node 20 makes each AbortSignal by giving an EventTarget another prototype: about 4 µs per
 * signal, and an object on which every listener added or removed then costs 1–2 µs more (Node 22
 * makes one in 0.1 µs). Every request made one (the client leaving or the deadline aborts its
 * work) and every streamed upstream call another (its idle clock): in turns, 9% of a whole
 * answer's CPU (docs/performance.md). The signal made here has an AbortSignal's surface (aborted,
 * reason, throwIfAborted, onabort, add/removeEventListener) with EventTarget's rules for it, and
 * passes `instanceof AbortSignal`, so it goes wherever the gateway's code takes a signal.
 *
 * What it cannot do is take part in Node's own linking of signals: `AbortSignal.any` over it
 * would never abort. Code of others that may do that (the MCP SDK's transports, provider SDKs,
 * fetch) gets `nativeSignal(signal)`: Node's own signal, made on first need and aborted with it.
 * On Node 22 and later `requestAbortController()` is Node's own AbortController.
 */

type Listener = Parameters<AbortSignal["addEventListener"]>[1];
type ListenerOptions = Parameters<AbortSignal["addEventListener"]>[2];

/** A listener, whether it was removed while the abort event was being dispatched, and how its `signal` option lets go of it. */
interface Registration {
  listener: Listener;
  removed: boolean;
  release?: () => void;
}

/**
 * What marks a light signal, across copies of this module (src and dist, or a test runner's
 * isolated imports): `instanceof` would let another copy's signal through unconverted.
 */
const NATIVE_OF = Symbol.for("mcp-gateway.light-abort-signal.native");

/** What a signal is aborted with when abort() is given no reason (Node's own default). */
function defaultReason(): DOMException {
  return new DOMException("This operation was aborted", "AbortError");
}

/** An AbortSignal of plain fields; aborted only by its LightAbortController. */
class LightAbortSignal implements AbortSignal {
  aborted = false;
  reason: unknown = undefined;
  onabort: ((this: AbortSignal, ev: Event) => unknown) | null = null;
  private registrations: Registration[] | undefined;
  private native: AbortController | undefined;

  throwIfAborted(): void {
    if (this.aborted) throw this.reason;
  }

  addEventListener(type: string, listener: Listener | null, options?: ListenerOptions): void {
    // An aborted signal dispatches no more events: a listener added now would never run.
    if (type !== "abort" || listener === null || this.aborted) return;
    const registrations = (this.registrations ??= []);
    // The same listener twice is one registration, as on an EventTarget.
    if (registrations.some((r) => r.listener === listener)) return;
    const registration: Registration = { listener, removed: false };
    const until = typeof options === "object" ? options.signal : undefined;
    if (until?.aborted) return;
    registrations.push(registration);
    if (until) {
      // Let go of on either side: the other signal, often long-lived, must not keep this one.
      const remove = () => this.removeEventListener(type, listener);
      until.addEventListener("abort", remove, { once: true });
      registration.release = () => until.removeEventListener("abort", remove);
    }
  }

  removeEventListener(type: string, listener: Listener | null): void {
    const registrations = this.registrations;
    if (type !== "abort" || registrations === undefined) return;
    const index = registrations.findIndex((r) => r.listener === listener);
    if (index === -1) return;
    const registration = registrations[index]!;
    registration.removed = true;
    registration.release?.();
    registrations.splice(index, 1);
  }

  dispatchEvent(event: Event): boolean {
    if (event.type === "abort") this.dispatch(event);
    return !event.defaultPrevented;
  }

  /** Node's own signal, aborted with this one: for code that links signals (AbortSignal.any). */
  [NATIVE_OF](): AbortSignal {
    if (!this.native) {
      this.native = new AbortController();
      if (this.aborted) this.native.abort(this.reason);
    }
    return this.native.signal;
  }

  /** Called by the controller only. */
  abortWith(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const event = new Event("abort");
    // As an EventTarget dispatches it: the signal is the event's target.
    Object.defineProperty(event, "target", { value: this });
    Object.defineProperty(event, "currentTarget", { value: this });
    this.dispatch(event);
    for (const registration of this.registrations ?? []) registration.release?.();
    this.registrations = undefined;
    this.native?.abort(reason);
  }

  /**
   * Each listener registered when the event is dispatched, in order; one removed meanwhile is
   * skipped, one added meanwhile not called; then `onabort` (an EventTarget runs it where it was
   * first set; nothing of the gateway's sets it). A listener that throws does not keep the others
   * from running: its error is thrown on the next tick, as an EventTarget's is.
   */
  private dispatch(event: Event): void {
    for (const registration of this.registrations?.slice() ?? []) {
      if (!registration.removed) this.call(registration.listener, event);
    }
    if (this.onabort) this.call(this.onabort as Listener, event);
  }

  private call(listener: Listener, event: Event): void {
    try {
      if (typeof listener === "function") listener.call(this, event);
      else listener.handleEvent(event);
    } catch (error) {
      process.nextTick(() => {
        throw error;
      });
    }
  }
}

// For code that checks what it was given (fetch's `signal`): every property and method it uses
// is the light signal's own; the prototype's are never reached.
Object.setPrototypeOf(LightAbortSignal.prototype, AbortSignal.prototype);

class LightAbortController implements AbortController {
  readonly signal = new LightAbortSignal();

  abort(reason?: unknown): void {
    this.signal.abortWith(reason === undefined ? defaultReason() : reason);
  }
}

/** Node 22 made its own signals cheap (see above). */
const NATIVE_IS_CHEAP = Number(process.versions.node.split(".")[0]) >= 22;

/** The AbortController of a request's work: Node's own on Node 22 and later, the light one before. */
export function requestAbortController(): AbortController {
  return NATIVE_IS_CHEAP ? new AbortController() : new LightAbortController();
}

/** The signal as Node's own AbortSignal (the same signal when it already is), for code of others that may link it to other signals. */
export function nativeSignal(signal: AbortSignal): AbortSignal;
export function nativeSignal(signal: AbortSignal | undefined): AbortSignal | undefined;
export function nativeSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
  const native = (signal as { [NATIVE_OF]?: () => AbortSignal } | undefined)?.[NATIVE_OF];
  return native ? native.call(signal) : signal;
}

/** The light controller whatever the Node version (tests: it is what Node 20 runs). */
export function lightAbortController(): AbortController {
  return new LightAbortController();
}
