import { describe, expect, it } from "vitest";
import { sseEvents } from "../../src/adapters/sse-events.ts";

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

describe("sseEvents: the end of a stream", () => {
  it("a consumer that stops once the protocol says complete leaves the rest to be read to its end, not cancelled", async () => {
    const served = servedBody(["event: a\ndata: 1\n\nevent: stop\ndata: 2\n\n", ": the server's last words\n\n"]);
    let complete = false;
    const seen: string[] = [];
    for await (const { event } of sseEvents(served.body, new AbortController().signal, { complete: () => complete })) {
      seen.push(event!);
      if (event === "stop") {
        complete = true;
        break;
      }
    }
    expect(seen).toEqual(["a", "stop"]);
    await served.over;
    expect(served.state).toEqual({ cancelled: false, readToEnd: true });
  });

  it("a consumer that stops before completion cancels the body", async () => {
    const served = servedBody(["event: a\ndata: 1\n\n", "event: b\ndata: 2\n\n"]);
    for await (const _event of sseEvents(served.body, new AbortController().signal, { complete: () => false })) break;
    await served.over;
    expect(served.state).toEqual({ cancelled: true, readToEnd: false });
  });

  it("without the option, stopping early cancels too", async () => {
    const served = servedBody(["event: a\ndata: 1\n\n", "event: b\ndata: 2\n\n"]);
    for await (const _event of sseEvents(served.body, new AbortController().signal)) break;
    await served.over;
    expect(served.state).toEqual({ cancelled: true, readToEnd: false });
  });
});
