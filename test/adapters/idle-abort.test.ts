/** The idle clock + abort signal both adapters hand to their SDK. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { IdleAbort } from "../../src/adapters/idle-abort.ts";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("IdleAbort", () => {
  it("its idle timer never keeps the process alive (unref'd)", () => {
    const setTimeoutSpy = vi.spyOn(globalThis, "setTimeout");
    const idle = new IdleAbort(undefined, 600_000);
    idle.arm();
    const timer = setTimeoutSpy.mock.results.at(-1)?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    idle.dispose();
  });

  it("aborts after idleMs of silence and says it timed out", () => {
    vi.useFakeTimers();
    const idle = new IdleAbort(undefined, 1000);
    idle.arm();
    vi.advanceTimersByTime(999);
    expect(idle.signal.aborted).toBe(false);
    expect(idle.interruption("p", undefined)).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(idle.signal.aborted).toBe(true);
    expect(idle.interruption("p", undefined)).toMatchObject({ status: 504, code: "upstream_timeout", provider: "p", retryable: true });
  });

  it("re-arming restarts the clock; paused, it does not run", () => {
    vi.useFakeTimers();
    const idle = new IdleAbort(undefined, 1000);
    idle.arm();
    vi.advanceTimersByTime(800);
    idle.arm();
    vi.advanceTimersByTime(800);
    expect(idle.signal.aborted).toBe(false);
    idle.pause();
    vi.advanceTimersByTime(5000);
    expect(idle.signal.aborted).toBe(false);
    idle.dispose();
  });

  it("follows the caller's abort (also one that came before), and the caller's abort wins", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const idle = new IdleAbort(caller.signal, 1000);
    idle.arm();
    vi.advanceTimersByTime(1000);
    caller.abort(new Error("gone"));
    expect(idle.interruption("p", undefined)).toMatchObject({ status: 499, code: "request_aborted", retryable: false });

    const early = new IdleAbort(caller.signal, 1000);
    expect(early.signal.aborted).toBe(true);
    expect(early.signal.reason).toEqual(new Error("gone"));
  });

  it("after dispose, neither the clock nor the caller aborts it", () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const idle = new IdleAbort(caller.signal, 1000);
    idle.arm();
    idle.dispose();
    vi.advanceTimersByTime(5000);
    caller.abort();
    expect(idle.signal.aborted).toBe(false);
  });
});
