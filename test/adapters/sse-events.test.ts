import { describe, expect, it } from "vitest";
import { sseBatches, type SseEvent } from "../../src/adapters/sse-events.ts";

const encoder = new TextEncoder();

/** A body served read by read (nothing is read ahead); settles `over` when read to its end or cancelled. */
function servedBody(chunks: string[]) {
  const state = { cancelled: false, readToEnd: false };
  let settle!: () => void;
  const over = new Promise<void>((resolve) => (settle = resolve));
  let index = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = chunks[index++];
        if (next !== undefined) return controller.enqueue(encoder.encode(next));
        state.readToEnd = true;
        controller.close();
        settle();
      },
      cancel() {
        state.cancelled = true;
        settle();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, state, over };
}

const asIs = (event: SseEvent) => event;

describe("sseBatches: a batch per read", () => {
  it("yields what decode makes of each read's events in one array, skipping what it leaves undefined", async () => {
    const served = servedBody(["event: a\ndata: 1\n\nevent: skip\ndata: 2\n\nevent: b\ndata: 3\n\n", "event: c\ndata: 4\n\nevent: d\ndata: 5", "\n\n"]);
    const batches: string[][] = [];
    const decode = ({ event, data }: SseEvent) => (event === "skip" ? undefined : `${event}${data}`);
    for await (const batch of sseBatches(served.body, new AbortController().signal, decode)) batches.push(batch);
    expect(batches).toEqual([["a1", "b3"], ["c4"], ["d5"]]);
    expect(served.state).toEqual({ cancelled: false, readToEnd: true });
  });

  it("a decode error follows the events decoded before it in the same read, and cancels the body", async () => {
    const served = servedBody(["event: a\ndata: 1\n\nevent: bad\ndata: 2\n\nevent: b\ndata: 3\n\n", "event: c\ndata: 4\n\n"]);
    const decode = ({ event }: SseEvent) => {
      if (event === "bad") throw new SyntaxError("refused");
      return event;
    };
    const seen: unknown[] = [];
    let failure: unknown;
    try {
      for await (const batch of sseBatches(served.body, new AbortController().signal, decode)) seen.push(batch);
    } catch (error) {
      failure = error;
    }
    expect(seen).toEqual([["a"]]);
    expect(failure).toBeInstanceOf(SyntaxError);
    await served.over;
    expect(served.state).toEqual({ cancelled: true, readToEnd: false });
  });

  it("a decode error is thrown even when the signal was aborted meanwhile, never taken for the abort", async () => {
    const served = servedBody(["event: a\ndata: 1\n\nevent: bad\ndata: 2\n\n"]);
    const controller = new AbortController();
    const decode = ({ event }: SseEvent) => {
      if (event === "bad") throw new SyntaxError("refused");
      return event;
    };
    const run = async () => {
      for await (const _batch of sseBatches(served.body, controller.signal, decode)) controller.abort();
    };
    await expect(run()).rejects.toBeInstanceOf(SyntaxError);
  });
});

describe("sseBatches: the end of a stream", () => {
  it("a consumer that stops once the protocol says complete leaves the rest to be read to its end, not cancelled", async () => {
    const served = servedBody(["event: a\ndata: 1\n\nevent: stop\ndata: 2\n\n", ": the server's last words\n\n"]);
    let complete = false;
    const seen: string[] = [];
    read: for await (const batch of sseBatches(served.body, new AbortController().signal, asIs, { complete: () => complete })) {
      for (const { event } of batch) {
        seen.push(event!);
        if (event === "stop") {
          complete = true;
          break read;
        }
      }
    }
    expect(seen).toEqual(["a", "stop"]);
    await served.over;
    expect(served.state).toEqual({ cancelled: false, readToEnd: true });
  });

  it("a consumer that stops before completion cancels the body", async () => {
    const served = servedBody(["event: a\ndata: 1\n\n", "event: b\ndata: 2\n\n"]);
    for await (const _batch of sseBatches(served.body, new AbortController().signal, asIs, { complete: () => false })) break;
    await served.over;
    expect(served.state).toEqual({ cancelled: true, readToEnd: false });
  });

  it("without the option, stopping early cancels too", async () => {
    const served = servedBody(["event: a\ndata: 1\n\n", "event: b\ndata: 2\n\n"]);
    for await (const _batch of sseBatches(served.body, new AbortController().signal, asIs)) break;
    await served.over;
    expect(served.state).toEqual({ cancelled: true, readToEnd: false });
  });
});
