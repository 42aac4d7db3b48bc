/**
 * relay: a source's items re-shaped into another generator's, with its return value; a consumer
 * that stops early closes the source (its `finally` runs), and a source's failure reaches the
 * consumer.
 */
import { describe, expect, it } from "vitest";
import { eachEvent, singleEvents } from "../../src/core/event-batches.ts";
import type { StreamEvent } from "../../src/core/index.ts";
import { relay } from "../../src/core/relay.ts";

const delta = (text: string): StreamEvent => ({ type: "text_delta", delta: text });

describe("relay", () => {
  it("passes every item on, re-shaped, and the source's return value", async () => {
    async function* source(): AsyncGenerator<number[], string> {
      yield [1, 2];
      yield [3];
      return "end";
    }
    const out = relay(source(), (batch) => batch);
    const items: number[] = [];
    let step = await out.next();
    while (!step.done) {
      items.push(step.value);
      step = await out.next();
    }
    expect(items).toEqual([1, 2, 3]);
    expect(step.value).toBe("end");
  });

  it("closes the source when the consumer stops early", async () => {
    let closed = false;
    async function* source(): AsyncGenerator<StreamEvent[]> {
      try {
        yield [delta("a"), delta("b")];
        await new Promise<never>(() => {});
      } finally {
        closed = true;
      }
    }
    for await (const event of eachEvent(source())) if (event.type === "text_delta") break;
    expect(closed).toBe(true);
  });

  it("stops early over a source without return(), and passes a source's failure on", async () => {
    const plain: AsyncIterable<StreamEvent> = {
      [Symbol.asyncIterator]: () => {
        let n = 0;
        return { next: async () => (n++ < 3 ? { done: false, value: delta(String(n)) } : { done: true, value: undefined }) };
      },
    };
    for await (const batch of singleEvents(plain)) {
      expect(batch).toEqual([delta("1")]);
      break;
    }
    async function* failing(): AsyncGenerator<StreamEvent> {
      yield delta("a");
      throw new Error("upstream gone");
    }
    const seen: StreamEvent[][] = [];
    await expect(
      (async () => {
        for await (const batch of singleEvents(failing())) seen.push(batch);
      })(),
    ).rejects.toThrow("upstream gone");
    expect(seen).toEqual([[delta("a")]]);
  });
});
