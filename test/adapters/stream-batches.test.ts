/**
 * Streamed events in batches, one per upstream read (src/adapters/stream-batches.ts,
 * src/core/event-batches.ts): the translation layer on scripted reads, then a real adapter over a
 * local upstream, whose batches must flatten to exactly the events its `stream` gives, and the
 * retry layer over a model that only streams event by event.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatModel, StreamEvent } from "../../src/core/index.ts";
import { eachEvent, singleEvents } from "../../src/core/event-batches.ts";
import { translatedBatches } from "../../src/adapters/stream-batches.ts";
import type { StreamTranslation } from "../../src/adapters/types.ts";
import { resilientModel } from "../../src/gateway/routing/resilient-model.ts";
import { DEFAULT_RETRY_POLICY } from "../../src/gateway/routing/retry-policy.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { chunkLines, openAiSseFromChunks, sendSse, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { adapterFor, collect, simpleRequest } from "./openai-chat/harness.ts";

const text = (delta: string): StreamEvent => ({ type: "text_delta", delta });

/** Reads of numbers; each becomes a text delta, "stop" is the terminal item, "bad" fails. */
function translation(): StreamTranslation<string> & { ended: boolean } {
  const state = { finished: false, ended: false };
  return {
    push(item) {
      if (item === "bad") throw new Error("untranslatable");
      if (item === "stop") state.finished = true;
      return [text(item)];
    },
    get finished() {
      return state.finished;
    },
    get ended() {
      return state.ended;
    },
    end() {
      state.ended = true;
      return [text("end")];
    },
  };
}

/** Scripted reads, noting whether the reader was told to stop (return()). */
function reads(script: string[][]): AsyncIterable<string[]> & { stopped: boolean } {
  const state = { stopped: false };
  return {
    get stopped() {
      return state.stopped;
    },
    [Symbol.asyncIterator]() {
      let i = 0;
      return {
        next: async () => (i < script.length ? { value: script[i++]!, done: false } : { value: undefined, done: true }),
        return: async () => {
          state.stopped = true;
          return { value: undefined, done: true };
        },
      };
    },
  };
}

function clock(log: string[]) {
  return { pause: () => log.push("pause"), arm: () => log.push("arm") };
}

async function batchesOf<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe("translatedBatches", () => {
  it("gives one batch per read (none for a read without events), then the translation's end", async () => {
    const log: string[] = [];
    const t = translation();
    const batches = await batchesOf(translatedBatches(reads([["a", "b"], [], ["c"]]), t, clock(log), (e) => e));
    expect(batches).toEqual([[text("a"), text("b")], [text("c")], [text("end")]]);
    expect(t.ended).toBe(true);
    // The clock is paused while each batch is handled and re-armed before the next read.
    expect(log).toEqual(["pause", "arm", "pause", "arm", "pause", "arm"]);
  });

  it("stops reading at the terminal event, without the end", async () => {
    const t = translation();
    const source = reads([["a", "stop", "after"], ["never"]]);
    const batches = await batchesOf(translatedBatches(source, t, clock([]), (e) => e));
    expect(batches).toEqual([[text("a"), text("stop")]]);
    expect(source.stopped).toBe(true);
    expect(t.ended).toBe(false);
  });

  it("hands on what a read translated before it failed, then the failure", async () => {
    const seen: StreamEvent[][] = [];
    const run = async () => {
      for await (const batch of translatedBatches(reads([["a"], ["b", "bad", "c"]]), translation(), clock([]), (e) => e)) seen.push(batch);
    };
    await expect(run()).rejects.toThrow("untranslatable");
    expect(seen).toEqual([[text("a")], [text("b")]]);
  });

  it("maps every event on its way out", async () => {
    const batches = await batchesOf(translatedBatches(reads([["a"]]), translation(), clock([]), (e) => (e.type === "text_delta" ? text(e.delta.toUpperCase()) : e)));
    expect(batches).toEqual([[text("A")], [text("END")]]);
  });

  it("round-trips between batches and single events", async () => {
    async function* source() {
      yield [text("a"), text("b")];
      yield [text("c")];
    }
    const single = await batchesOf(eachEvent(source()));
    expect(single).toEqual([text("a"), text("b"), text("c")]);
    async function* events() {
      yield* single;
    }
    expect(await batchesOf(singleEvents(events()))).toEqual([[text("a")], [text("b")], [text("c")]]);
  });
});

describe("a real adapter's batches", () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    // The recorded answer's chunks in one write: one read of the body, one batch.
    const body = openAiSseFromChunks(chunkLines("openai-chat/openai-text.chunks.txt"));
    upstream = await startFakeUpstream((_req, res) => sendSse(res, body));
  });
  afterAll(() => upstream.close());

  it("come in fewer batches than events and flatten to exactly what `stream` gives", async () => {
    const adapter = adapterFor(upstream);
    const batches = await batchesOf(adapter.streamBatches!(simpleRequest()));
    const events = await collect(adapter.stream(simpleRequest()));
    expect(batches.flat()).toEqual(events);
    expect(events.length).toBeGreaterThan(3);
    expect(batches.length).toBeLessThan(events.length);
    expect(events.at(-1)?.type).toBe("done");
  });

  it("pass the retry layer, which also takes a model that streams event by event", async () => {
    const adapter = adapterFor(upstream);
    const eventByEvent: ChatModel = { complete: adapter.complete, stream: adapter.stream };
    const candidates = (model: ChatModel) => [{ provider: { name: "p", adapter: model, schemaTarget: "openai" }, modelId: "test-model" }];
    const options = { tools: { has: () => false, definitions: () => [], call: () => Promise.reject(new Error("none")) }, schemaTarget: "openai" as const, policy: DEFAULT_RETRY_POLICY, logger: silentLogger() };
    const batched = resilientModel({ ...options, candidates: candidates(adapter) } as unknown as Parameters<typeof resilientModel>[0]);
    const single = resilientModel({ ...options, candidates: candidates(eventByEvent) } as unknown as Parameters<typeof resilientModel>[0]);
    const fromBatches = (await batchesOf(batched.streamBatches!(simpleRequest()))).flat();
    const fromSingles = await collect(single.stream(simpleRequest()));
    expect(fromBatches).toEqual(fromSingles);
    // Who answered is stamped on the start and the result, as before.
    expect(fromBatches[0]).toMatchObject({ type: "start", provider: "p" });
    expect(fromBatches.at(-1)).toMatchObject({ type: "done", result: { provider: "p" } });
  });
});

describe("a Chat Completions answer's [DONE]", () => {
  let upstream: FakeUpstream;
  let release: () => void = () => undefined;
  beforeAll(async () => {
    // The recorded answer and its [DONE], then the body held open until the test lets it end.
    const body = openAiSseFromChunks(chunkLines("openai-chat/openai-text.chunks.txt"));
    upstream = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(body);
      release = () => res.end();
    });
  });
  afterAll(() => upstream.close());

  it("ends the answer: its closing events come with the read that brought it, without waiting for the body's end", async () => {
    const adapter = adapterFor(upstream);
    const batches = await batchesOf(adapter.streamBatches!(simpleRequest()));
    // The upstream has not ended the body yet: the answer was over at [DONE].
    expect(batches.at(-1)!.at(-1)?.type).toBe("done");
    expect(batches.flat().filter((event) => event.type === "done")).toHaveLength(1);
    release();
  });
});
