/**
 * inCheckPhase: tasks run after this turn's microtasks (where answers are written), in the order
 * queued, with one immediate for all of a turn's tasks; a task queued by a task runs in the next
 * turn; a task that throws is reported as a process warning and the others still run.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { inCheckPhase } from "../../src/core/check-phase.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Resolves in the check phase after the current one (an immediate queued after the tasks). */
const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("inCheckPhase", () => {
  it("runs after the turn's microtasks, in the order queued, with one immediate for the turn", async () => {
    const seen: string[] = [];
    const immediates = vi.spyOn(globalThis, "setImmediate");
    inCheckPhase(() => seen.push("first task"));
    void Promise.resolve().then(() => seen.push("microtask"));
    inCheckPhase(() => seen.push("second task"));
    expect(immediates).toHaveBeenCalledTimes(1);
    immediates.mockRestore();
    expect(seen).toEqual([]);
    await nextCheckPhase();
    expect(seen).toEqual(["microtask", "first task", "second task"]);
  });

  it("runs a task queued by a task in the next turn's check phase", async () => {
    const seen: string[] = [];
    inCheckPhase(() => {
      seen.push("outer");
      inCheckPhase(() => seen.push("inner"));
    });
    await nextCheckPhase();
    expect(seen).toEqual(["outer"]);
    await nextCheckPhase();
    expect(seen).toEqual(["outer", "inner"]);
  });

  it("reports a task that throws as a process warning, and runs the tasks after it", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const seen: string[] = [];
      inCheckPhase(() => {
        throw new Error("cannot serialize");
      });
      inCheckPhase(() => seen.push("after"));
      await nextCheckPhase();
      expect(seen).toEqual(["after"]);
      // Warnings are emitted on the next tick.
      await new Promise<void>((resolve) => process.nextTick(resolve));
      expect(warnings.map((w) => w.message)).toEqual(["cannot serialize"]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
