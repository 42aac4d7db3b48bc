/**
 * startSse's writes, whatever the sink: the head (the loop's steps through the one that commits)
 * is the first pull's (or `head()`'s, at once), alone, and what the loop makes after it the next; an answer the loop ended
 * before anything committed is whole already and leaves in one pull. Driven by a loop of the
 * test's own, with a writer that names what it writes.
 */
import { describe, expect, it } from "vitest";
import type { LoopBatches, LoopEvent, LoopOutcome } from "../../src/loop/index.ts";
import { startSse } from "../../src/gateway/shared/sse-frames.ts";
import type { SseWriter } from "../../src/gateway/shared/sse-pump.ts";

const writer: SseWriter = {
  open: () => "open|",
  event: (event) => (event.type === "text_delta" ? `${event.delta}|` : ""),
  finish: (outcome) => `finish:${outcome.stopReason}|`,
  fail: (error) => `fail:${error.message}|`,
  heartbeat: ":|",
};

const outcome = { stopReason: "stop" } as LoopOutcome;

async function* loopOf(steps: LoopEvent[][]): LoopBatches {
  for (const step of steps) yield step;
  return outcome;
}

function frames(steps: LoopEvent[][]) {
  return startSse({ loop: loopOf(steps), writer, controller: new AbortController(), heartbeatMs: 600_000 });
}

describe("startSse's pulls", () => {
  it("gives the head alone first, then the loop's end with the closing frames", async () => {
    const sse = await frames([[{ type: "turn_start", turn: 1 }], [{ type: "text_delta", delta: "a" }, { type: "text_delta", delta: "b" }], [{ type: "turn_end", turn: 1 }]]);
    expect(await sse.next()).toBe("open|a|b|");
    expect(sse.ended).toBe(false);
    expect(await sse.next()).toBe("finish:stop|");
    expect(sse.ended).toBe(true);
  });

  it("gives an answer the loop ended before anything committed in one pull", async () => {
    const sse = await frames([[{ type: "turn_start", turn: 1 }]]);
    expect(sse.head()).toBeUndefined();
    expect(await sse.next()).toBe("open|finish:stop|");
    expect(sse.ended).toBe(true);
  });

  it("gives the head at once to a sink that asks for it (head()), once; the first pull then gives what follows", async () => {
    const sse = await frames([[{ type: "turn_start", turn: 1 }], [{ type: "text_delta", delta: "a" }], [{ type: "text_delta", delta: "b" }]]);
    expect(sse.head()).toBe("open|a|");
    expect(sse.head()).toBeUndefined();
    expect(await sse.next()).toBe("b|finish:stop|");
    expect(sse.ended).toBe(true);
  });
});

describe("a writer that fails", () => {
  /** A loop that records whether it was closed (its `finally`, as an adapter's releases its upstream call). */
  function closingLoop(steps: LoopEvent[][]) {
    const state = { closed: false };
    async function* loop(): LoopBatches {
      try {
        for (const step of steps) yield step;
        return outcome;
      } finally {
        state.closed = true;
      }
    }
    return { loop: loop(), state };
  }
  const failingOn = (delta: string): SseWriter => ({
    ...writer,
    event: (event) => {
      if (event.type === "text_delta" && event.delta === delta) throw new Error(`cannot write ${delta}`);
      return writer.event(event);
    },
  });
  const steps: LoopEvent[][] = [[{ type: "turn_start", turn: 1 }], [{ type: "text_delta", delta: "a" }], [{ type: "text_delta", delta: "b" }], [{ type: "text_delta", delta: "c" }]];

  it("between the loop's steps: the stream ends with the failure and the loop is closed where it stopped", async () => {
    const { loop, state } = closingLoop(steps);
    const sse = await startSse({ loop, writer: failingOn("b"), controller: new AbortController(), heartbeatMs: 600_000 });
    expect(sse.head()).toBe("open|a|");
    // The failure's frames (an error that is not the gateway's is told as an internal one).
    expect(await sse.next()).toMatch(/^fail:.*\|$/);
    expect(sse.ended).toBe(true);
    await Promise.resolve();
    expect(state.closed).toBe(true);
  });

  it("in the head: startSse fails (an HTTP error follows) and the loop is closed", async () => {
    const { loop, state } = closingLoop(steps);
    await expect(startSse({ loop, writer: failingOn("a"), controller: new AbortController(), heartbeatMs: 600_000 })).rejects.toThrow("cannot write a");
    await Promise.resolve();
    expect(state.closed).toBe(true);
  });
});
