/**
 * The loop in batches (runAgentLoopBatches, what the doors drive): the events one upstream read
 * makes leave in one batch, the last turn's end leaves with `done`, no batch is empty, and the
 * loop one event at a time (runAgentLoop) is the same events in the same order.
 */
import { describe, expect, it } from "vitest";
import type { ChatRequest, StreamEvent } from "../../src/core/index.ts";
import { runAgentLoop, runAgentLoopBatches, type LoopEvent, type LoopOptions, type LoopOutcome } from "../../src/loop/index.ts";
import { call, MemoryTools, ScriptedModel, text, type Reply } from "../helpers/scripted-model.ts";

/** A model that sends one read, then waits for a second that never comes; `closed` once its stream is closed. */
class HangingModel extends ScriptedModel {
  closed = false;
  async *streamBatches(): AsyncGenerator<StreamEvent[], void, undefined> {
    try {
      yield [{ type: "start", id: "r1", model: "m" }, { type: "text_start" }, { type: "text_delta", delta: "Hel" }];
      await new Promise<never>(() => {});
    } finally {
      this.closed = true;
    }
  }
}

/** A model whose whole stream arrives in one read: one batch per call. */
class OneReadModel extends ScriptedModel {
  async *streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
    const events: StreamEvent[] = [];
    for await (const event of this.stream(request, signal)) events.push(event);
    yield events;
  }
}

function options(replies: Reply[], tools: MemoryTools): LoopOptions {
  return {
    model: new OneReadModel(replies),
    schemaTarget: "openai",
    request: { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] },
    tools,
    stream: true,
    maxIterations: 10,
  };
}

async function batchesOf(opts: LoopOptions): Promise<{ batches: LoopEvent[][]; outcome: LoopOutcome }> {
  const batches: LoopEvent[][] = [];
  const loop = runAgentLoopBatches(opts);
  for (;;) {
    const step = await loop.next();
    if (step.done) return { batches, outcome: step.value };
    batches.push(step.value);
  }
}

async function eventsOf(opts: LoopOptions): Promise<LoopEvent[]> {
  const events: LoopEvent[] = [];
  for await (const event of runAgentLoop(opts)) events.push(event);
  return events;
}

const types = (batches: LoopEvent[][]) => batches.map((batch) => batch.map((event) => event.type));

describe("the agent loop in batches", () => {
  it("gives the events of one upstream read as one batch; the turn's closing events go with `done`", async () => {
    const { batches, outcome } = await batchesOf(options([[text("hello")]], new MemoryTools({})));
    expect(types(batches)).toEqual([["turn_start"], ["model_start", "text_start", "text_delta", "text_delta", "text_end"], ["usage", "model_response", "turn_end", "done"]]);
    expect(outcome.message.content).toEqual([text("hello")]);
    expect((await eventsOf(options([[text("hello")]], new MemoryTools({})))).map((event) => event.type)).toEqual(types(batches).flat());
  });

  it("sends what the client sees of the read with the result before the stream's end is read", async () => {
    let endStream!: () => void;
    const ending = new Promise<void>((resolve) => (endStream = resolve));
    let ended = false;
    /** The whole answer in one read, then a stream that ends only when the test says so. */
    class SlowEndModel extends ScriptedModel {
      async *streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
        const events: StreamEvent[] = [];
        for await (const event of this.stream(request, signal)) events.push(event);
        yield events;
        await ending;
        ended = true;
      }
    }
    const loop = runAgentLoopBatches({ ...options([[text("hello")]], new MemoryTools({})), model: new SlowEndModel([[text("hello")]]) });
    expect(types([((await loop.next()) as IteratorYieldResult<LoopEvent[]>).value])).toEqual([["turn_start"]]);
    const seen = (await loop.next()) as IteratorYieldResult<LoopEvent[]>;
    expect(types([seen.value])).toEqual([["model_start", "text_start", "text_delta", "text_delta", "text_end"]]);
    expect(ended).toBe(false);
    const closing = loop.next();
    endStream();
    expect(types([((await closing) as IteratorYieldResult<LoopEvent[]>).value])).toEqual([["usage", "model_response", "turn_end", "done"]]);
    expect(ended).toBe(true);
    expect((await loop.next()).done).toBe(true);
  });

  it("sends each read as it comes; the turn's closing events wait for the stream's end", async () => {
    class TwoReadModel extends ScriptedModel {
      async *streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
        const events: StreamEvent[] = [];
        for await (const event of this.stream(request, signal)) events.push(event);
        const cut = events.findIndex((event) => event.type === "text_delta") + 1;
        yield events.slice(0, cut);
        yield events.slice(cut);
      }
    }
    const { batches } = await batchesOf({ ...options([[text("hello")]], new MemoryTools({})), model: new TwoReadModel([[text("hello")]]) });
    expect(types(batches)).toEqual([["turn_start"], ["model_start", "text_start", "text_delta"], ["text_delta", "text_end"], ["usage", "model_response", "turn_end", "done"]]);
  });

  it("runs the gateway's tools between turns, with no empty batch, and matches the loop one event at a time", async () => {
    const replies: Reply[] = [[text("checking"), call("c1", "weather", { city: "Oslo" })], [text("sunny")]];
    const weather = () => "sunny in Oslo";
    const { batches } = await batchesOf(options(replies, new MemoryTools({ weather })));
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
    const flat = types(batches).flat();
    expect(flat.indexOf("tool_start")).toBeGreaterThan(flat.indexOf("model_response"));
    expect(flat.indexOf("tool_end")).toBeLessThan(flat.lastIndexOf("turn_start"));
    expect(flat.slice(-2)).toEqual(["turn_end", "done"]);
    const oneByOne = await eventsOf(options(replies, new MemoryTools({ weather })));
    expect(oneByOne.map((event) => event.type)).toEqual(flat);
  });

  describe("a whole answer (not streamed)", () => {
    const whole = (replies: Reply[], tools = new MemoryTools({})): LoopOptions => ({ ...options(replies, tools), stream: false });

    it("sends the turn's usage and model_response with its end and `done`: one batch fewer", async () => {
      const { batches, outcome } = await batchesOf(whole([[text("hello")]]));
      expect(types(batches)).toEqual([["turn_start"], ["usage", "model_response", "turn_end", "done"]]);
      expect(outcome.message.content).toEqual([text("hello")]);
      expect(await eventsOf(whole([[text("hello")]]))).toEqual(batches.flat());
    });

    it("sends them before the tools run when the turn called tools", async () => {
      const replies: Reply[] = [[call("c1", "weather", { city: "Oslo" })], [text("sunny")]];
      const { batches } = await batchesOf(whole(replies, new MemoryTools({ weather: () => "sunny" })));
      expect(types(batches)[1]).toEqual(["usage", "model_response"]);
      expect(types(batches).at(-1)).toEqual(["usage", "model_response", "turn_end", "done"]);
    });

    it("sends them on their own before an afterModelCall hook runs", async () => {
      const seen: string[] = [];
      const loop = runAgentLoopBatches({ ...whole([[text("hello")]]), hooks: { afterModelCall: () => void seen.push("hook") } });
      for (let step = await loop.next(); !step.done; step = await loop.next()) seen.push(step.value.map((e) => e.type).join(","));
      expect(seen).toEqual(["turn_start", "usage,model_response", "hook", "turn_end,done"]);
    });

    it("sends them on their own before a steering queue is asked for a follow-up", async () => {
      const seen: string[] = [];
      const steering = { steering: () => [], followUp: () => (seen.push("follow-up asked"), []) };
      const loop = runAgentLoopBatches({ ...whole([[text("hello")]]), steering });
      for (let step = await loop.next(); !step.done; step = await loop.next()) seen.push(step.value.map((e) => e.type).join(","));
      expect(seen).toEqual(["turn_start", "usage,model_response", "follow-up asked", "turn_end,done"]);
    });
  });

  it("closes the model's stream when the consumer of the loop one event at a time stops early", async () => {
    const model = new HangingModel([]);
    const seen: string[] = [];
    for await (const event of runAgentLoop({ ...options([], new MemoryTools({})), model })) {
      seen.push(event.type);
      if (event.type === "text_delta") break;
    }
    expect(seen).toEqual(["turn_start", "model_start", "text_start", "text_delta"]);
    expect(model.closed).toBe(true);
  });
});
