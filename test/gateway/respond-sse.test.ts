/**
 * streamChat (the SSE response of /v1/chat/completions) driven directly, with an in-process
 * fake adapter behind the real loop and resilientModel: how loop events are grouped into the
 * body's chunks (the head, through the first event that commits, as the first chunk; then a burst
 * produced before the event loop's next check phase as one chunk, later events in later chunks),
 * failures after the first byte, and cancellation. Nothing
 * synchronises on sleeps: the adapter waits on gates the test opens after reading the body.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ModelAdapter } from "../../src/adapters/types.ts";
import type { LoopOutcome } from "../../src/loop/index.ts";
import { resolveConfig } from "../../src/core/config/index.ts";
import { GatewayError, type ChatRequest, type ChatResult, type StreamEvent } from "../../src/core/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { chatCompletionsDoor, parseChatCompletion } from "../../src/gateway/doors/chat-completions/door.ts";
import type { ChatDeps } from "../../src/gateway/shared/deps.ts";
import { rememberHiddenSteps, startLoop } from "../../src/gateway/shared/drive.ts";
import { prepareRequest } from "../../src/gateway/shared/prepare.ts";
import { startSse } from "../../src/gateway/shared/sse-frames.ts";
import { streamResponse } from "../../src/gateway/shared/sse-pump.ts";
import type { ProviderEntry } from "../../src/gateway/routing/providers.ts";
import { HiddenStepsKeeper, type HiddenSteps } from "../../src/gateway/state/hidden-steps.ts";
import { MemoryStore } from "../../src/gateway/state/store.ts";
import { MemoryTools, deferred } from "../helpers/scripted-model.ts";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type Script = (signal: AbortSignal | undefined) => AsyncGenerator<StreamEvent>;

/** A ModelAdapter whose stream is the given generator; records the signals it was handed. */
class FakeAdapter implements ModelAdapter {
  readonly id = "fake";
  readonly signals: (AbortSignal | undefined)[] = [];
  constructor(private readonly script: Script) {}

  async complete(): Promise<ChatResult> {
    throw new Error("complete() is not used by a streamed request");
  }

  stream(_request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent> {
    this.signals.push(signal);
    return this.script(signal);
  }
}

function result(text: string): ChatResult {
  return { id: "resp_1", model: "m", message: { role: "assistant", content: [{ type: "text", text }] }, stopReason: "stop", usage: { inputTokens: 3, outputTokens: 4 } };
}

/** Resolves when `gate` does; rejects with the abort reason when `signal` aborts first (as the SDKs do). */
function until(gate: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return gate;
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    void gate.then(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    });
  });
}

const HEARTBEAT_MS = 600_000;

/** Every setInterval the code under test starts, and which were cleared. */
function trackIntervals(): { started: NodeJS.Timeout[]; cleared: Set<unknown> } {
  const started: NodeJS.Timeout[] = [];
  const cleared = new Set<unknown>();
  const realSet = globalThis.setInterval;
  const realClear = globalThis.clearInterval;
  vi.spyOn(globalThis, "setInterval").mockImplementation(((fn: () => void, ms?: number) => {
    const handle = realSet(fn, ms);
    started.push(handle);
    return handle;
  }) as typeof setInterval);
  vi.spyOn(globalThis, "clearInterval").mockImplementation(((handle?: NodeJS.Timeout | string | number) => {
    cleared.add(handle);
    realClear(handle);
  }) as typeof clearInterval);
  return { started, cleared };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/**
 * Timers frozen (never advanced); setImmediate, microtasks and nextTick stay real. Grouping
 * must not wait on a timer: with these frozen, a stream that did would stall.
 */
function freezeTimers(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
}

interface Started {
  /** The web sink's Response, and the frames' end. */
  handle: { response: Response; finished: Promise<LoopOutcome | undefined> };
  controller: AbortController;
  adapter: FakeAdapter;
  intervals: ReturnType<typeof trackIntervals>;
}

async function start(script: Script, extra: Partial<ChatDeps> = {}, body: Record<string, unknown> = {}): Promise<Started> {
  const adapter = new FakeAdapter(script);
  const provider: ProviderEntry = { name: "fake", type: "openai", config: { type: "openai", name: "fake", missingVariables: [] }, schemaTarget: "openai", adapter };
  const logger = silentLogger();
  const deps: ChatDeps = {
    config: resolveConfig({}, {}),
    providers: new Map([["fake", provider]]),
    tools: { serverNames: () => [], select: () => new MemoryTools({}) },
    hiddenSteps: new HiddenStepsKeeper(new MemoryStore<HiddenSteps>(), logger),
    logger,
    heartbeatMs: HEARTBEAT_MS,
    ...extra,
  };
  const parsed = parseChatCompletion({ model: "fake/m", messages: [{ role: "user", content: "Hi" }], stream: true, ...body }, deps.config);
  const prepared = await prepareRequest(parsed, undefined, "tenant", deps);
  const intervals = trackIntervals();
  const controller = new AbortController();
  const frames = await startSse({
    loop: startLoop(prepared, deps, controller.signal),
    writer: chatCompletionsDoor(deps.config).writer(prepared),
    controller,
    heartbeatMs: deps.heartbeatMs ?? 10_000,
    beforeFinish: async (outcome) => rememberHiddenSteps(outcome, deps, prepared.tenant),
    ...(deps.scrub ? { scrub: deps.scrub } : {}),
  });
  const handle = { response: streamResponse(frames, { "x-request-id": "req_test" }), finished: frames.finished };
  return { handle, controller, adapter, intervals };
}

const decoder = new TextDecoder();

/** Every chunk of the body, to the end. */
async function readChunks(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string[]> {
  const chunks: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value));
  }
}

/** One chunk of the body (it must not be the end). */
async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const { done, value } = await reader.read();
  expect(done).toBe(false);
  return decoder.decode(value);
}

/** The `data:` payloads of SSE text: parsed JSON, or the raw string for `[DONE]`. */
function payloads(text: string): unknown[] {
  expect(text.endsWith("\n\n"), "a chunk ends at an event end").toBe(true);
  return text
    .split("\n\n")
    .filter((event) => event !== "")
    .map((event) => {
      expect(event.startsWith("data: "), JSON.stringify(event)).toBe(true);
      const data = event.slice("data: ".length);
      return data === "[DONE]" ? data : (JSON.parse(data) as unknown);
    });
}

interface Chunk {
  choices: { index: number; delta: { content?: string; role?: string }; finish_reason: string | null }[];
}

/** The content deltas of the payloads, in order. */
function contents(items: unknown[]): string[] {
  return items.flatMap((p) => {
    if (typeof p !== "object" || p === null || !("choices" in p)) return [];
    const content = (p as Chunk).choices[0]?.delta.content;
    return content === undefined || content === "" ? [] : [content];
  });
}

const finishReasons = (items: unknown[]) =>
  items.flatMap((p) => (typeof p === "object" && p !== null && "choices" in p ? (p as Chunk).choices.flatMap((c) => (c.finish_reason ? [c.finish_reason] : [])) : []));

function expectIntervalsCleared(intervals: ReturnType<typeof trackIntervals>): void {
  expect(intervals.started.length).toBeGreaterThan(0);
  for (const handle of intervals.started) expect(intervals.cleared.has(handle)).toBe(true);
}

// ---------------------------------------------------------------------------------------------

describe("streamChat: a burst of events leaves in one chunk", () => {
  it("100 deltas produced back-to-back arrive in far fewer than 100 chunks, and the stream is intact", async () => {
    const deltas = Array.from({ length: 100 }, (_, i) => `d${i}·`);
    const { handle, intervals } = await start(async function* () {
      yield { type: "start", id: "resp_1", model: "m" };
      yield { type: "text_start" };
      for (const delta of deltas) yield { type: "text_delta", delta };
      yield { type: "text_end", text: deltas.join("") };
      yield { type: "usage", usage: result("").usage };
      yield { type: "done", result: result(deltas.join("")) };
    });
    expect(handle.response.status).toBe(200);
    expect(handle.response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(handle.response.headers.get("x-request-id")).toBe("req_test");

    const chunks = await readChunks(handle.response.body!.getReader());
    expect(chunks.length).toBeLessThan(10);
    const items = chunks.flatMap(payloads);
    expect((items[0] as Chunk).choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(contents(items).join("")).toBe(deltas.join(""));
    expect(contents(items)).toEqual(deltas);
    expect(finishReasons(items)).toEqual(["stop"]);
    expect(items.at(-1)).toBe("[DONE]");
    expect(items.filter((p) => p === "[DONE]")).toHaveLength(1);

    expect((await handle.finished)?.stopReason).toBe("stop");
    expectIntervalsCleared(intervals);
  });

  it("a source that never pauses (each delta a check phase later) still streams: a burst stops at 64 KB", async () => {
    const deltas = Array.from({ length: 2000 }, (_, i) => `${"x".repeat(190)}${String(i).padStart(6, "0")}`);
    let produced = 0;
    const { handle } = await start(async function* () {
      yield { type: "start", id: "resp_1", model: "m" };
      yield { type: "text_start" };
      for (const delta of deltas) {
        await new Promise((resolve) => setImmediate(resolve));
        produced++;
        yield { type: "text_delta", delta };
      }
      yield { type: "text_end", text: deltas.join("") };
      yield { type: "done", result: result(deltas.join("")) };
    });
    const reader = handle.response.body!.getReader();
    const first = await readChunk(reader);
    // Far from all 2000 deltas (about 500 KB of frames) were waited for before the first write.
    expect(produced).toBeLessThan(deltas.length / 2);
    expect(first.length).toBeLessThan(64 * 1024 + 1024);
    const rest = await readChunks(reader);
    expect(contents([first, ...rest].flatMap(payloads))).toEqual(deltas);
  });

  it("with stream_options.include_usage the usage chunk comes after the finish, before [DONE]", async () => {
    const { handle } = await start(
      async function* () {
        yield { type: "start", id: "resp_1", model: "m" };
        for (let i = 0; i < 20; i++) yield { type: "text_delta", delta: `u${i}` };
        yield { type: "done", result: result("x") };
      },
      {},
      { stream_options: { include_usage: true } },
    );
    const items = (await readChunks(handle.response.body!.getReader())).flatMap(payloads);
    expect(contents(items)).toHaveLength(20);
    expect(items.at(-1)).toBe("[DONE]");
    expect(items.at(-2)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } });
    expect(finishReasons([items.at(-3)])).toEqual(["stop"]);
    await handle.finished;
  });

  it("an answer without text: the head (the opening, committed by the turn's end), then finish and [DONE] in one chunk", async () => {
    const { handle, intervals } = await start(async function* () {
      yield { type: "start", id: "resp_1", model: "m" };
      yield { type: "done", result: result("") };
    });
    const chunks = await readChunks(handle.response.body!.getReader());
    expect(chunks).toHaveLength(2);
    expect(payloads(chunks[0]!)).toHaveLength(1);
    const items = chunks.flatMap(payloads);
    expect(items).toHaveLength(3);
    expect((items[0] as Chunk).choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(finishReasons(items)).toEqual(["stop"]);
    expect(items.at(-1)).toBe("[DONE]");
    expect((await handle.finished)?.stopReason).toBe("stop");
    expectIntervalsCleared(intervals);
  });

  it("a burst, a wait, a burst: the head (through the first delta) leaves alone, the rest of the first burst in the next chunk; the second burst comes later", async () => {
    freezeTimers();
    const gate = deferred();
    const { handle, intervals } = await start(async function* (signal) {
      yield { type: "start", id: "resp_1", model: "m" };
      for (let i = 0; i < 50; i++) yield { type: "text_delta", delta: `a${i} ` };
      await until(gate.promise, signal);
      for (let i = 0; i < 50; i++) yield { type: "text_delta", delta: `b${i} ` };
      yield { type: "done", result: result("") };
    });
    const reader = handle.response.body!.getReader();
    const head = payloads(await readChunk(reader));
    expect(contents(head)).toEqual(["a0 "]);
    const first = payloads(await readChunk(reader));
    expect(contents(first)).toEqual(Array.from({ length: 49 }, (_, i) => `a${i + 1} `));
    expect(finishReasons([...head, ...first])).toEqual([]);
    gate.resolve();
    const rest = (await readChunks(reader)).flatMap(payloads);
    expect(contents(rest)).toEqual(Array.from({ length: 50 }, (_, i) => `b${i} `));
    expect(rest.at(-1)).toBe("[DONE]");
    await handle.finished;
    expectIntervalsCleared(intervals);
  }, 5_000);

  it("deltas separated by waits the test controls each arrive in their own chunk, before the next is released (no timer involved)", async () => {
    freezeTimers();
    const count = 8;
    const gates = Array.from({ length: count }, () => deferred());
    const released: number[] = [];
    const { handle, intervals } = await start(async function* (signal) {
      yield { type: "start", id: "resp_1", model: "m" };
      yield { type: "text_start" };
      for (let k = 0; k < count; k++) {
        if (k > 0) await until(gates[k]!.promise, signal);
        yield { type: "text_delta", delta: `<${k}>` };
      }
      yield { type: "text_end", text: "" };
      yield { type: "done", result: result("") };
    });
    const reader = handle.response.body!.getReader();
    // The head: the opening (the role), committed by text_start, before any delta.
    const head = payloads(await readChunk(reader));
    expect((head[0] as Chunk).choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(contents(head)).toEqual([]);
    const seen: string[] = [];
    for (let k = 0; k < count; k++) {
      // Delta k is read while delta k+1 is still held by its gate: nothing waits for more.
      const items = payloads(await readChunk(reader));
      expect(released).toEqual(Array.from({ length: k }, (_, i) => i + 1));
      expect(contents(items)).toEqual([`<${k}>`]);
      seen.push(...contents(items));
      if (k + 1 < count) {
        expect(finishReasons(items)).toEqual([]);
        released.push(k + 1);
        gates[k + 1]!.resolve();
      }
    }
    const tail = (await readChunks(reader)).flatMap(payloads);
    expect(contents(tail)).toEqual([]);
    expect(seen).toEqual(Array.from({ length: count }, (_, k) => `<${k}>`));
    await handle.finished;
    expectIntervalsCleared(intervals);
  }, 5_000);
});

describe("streamChat: failures after the first byte", () => {
  const secret = "sk-very-secret-1234";

  it.each([
    [
      "a GatewayError (its message, scrubbed)",
      () => new GatewayError(`upstream broke mid-stream (key ${secret})`, { status: 502, type: "api_error", code: "upstream_error" }),
      { message: "upstream broke mid-stream (key [REDACTED])", type: "api_error", param: null, code: "upstream_error" },
    ],
    [
      "any other error (hidden behind an internal error)",
      () => new Error(`driver exploded with ${secret}`),
      { message: "internal error (see the gateway log for this request id)", type: "api_error", param: null, code: "internal_error" },
    ],
  ])("an adapter throwing after 5 deltas: the deltas, then an error chunk and [DONE] — %s", async (_kind, makeError, expected) => {
    const { handle, intervals } = await start(
      async function* () {
        yield { type: "start", id: "resp_1", model: "m" };
        for (let i = 0; i < 5; i++) yield { type: "text_delta", delta: `e${i}` };
        throw makeError();
      },
      { scrub: (text) => text.split(secret).join("[REDACTED]") },
    );
    const chunks = await readChunks(handle.response.body!.getReader());
    const items = chunks.flatMap(payloads);
    expect(contents(items)).toEqual(["e0", "e1", "e2", "e3", "e4"]);
    expect(items.slice(-2)).toEqual([{ error: expected }, "[DONE]"]);
    expect(finishReasons(items)).toEqual([]);
    expect(chunks.join("")).not.toContain(secret);
    expect(await handle.finished).toBeUndefined();
    expectIntervalsCleared(intervals);
  });

  it("an error after a wait arrives in a later chunk, after every delta already read", async () => {
    const gate = deferred();
    const { handle } = await start(async function* (signal) {
      yield { type: "start", id: "resp_1", model: "m" };
      for (let i = 0; i < 3; i++) yield { type: "text_delta", delta: `w${i}` };
      await until(gate.promise, signal);
      throw new GatewayError("upstream cut off", { status: 502, type: "api_error", code: "upstream_cut_off" });
    });
    const reader = handle.response.body!.getReader();
    // The head (through the first delta), then the rest of the burst.
    expect(contents(payloads(await readChunk(reader)))).toEqual(["w0"]);
    expect(contents(payloads(await readChunk(reader)))).toEqual(["w1", "w2"]);
    gate.resolve();
    const rest = (await readChunks(reader)).flatMap(payloads);
    expect(rest).toEqual([{ error: { message: "upstream cut off", type: "api_error", param: null, code: "upstream_cut_off" } }, "[DONE]"]);
    expect(await handle.finished).toBeUndefined();
  });
});

describe("streamChat: cancelling the body", () => {
  it("reader.cancel() aborts the controller and closes the adapter's generator (its finally runs)", async () => {
    const gate = deferred();
    const closed = deferred();
    let yieldedAfterGate = false;
    const { handle, controller, adapter, intervals } = await start(async function* (signal) {
      try {
        yield { type: "start", id: "resp_1", model: "m" };
        yield { type: "text_delta", delta: "first" };
        await until(gate.promise, signal);
        yieldedAfterGate = true;
        yield { type: "text_delta", delta: "never" };
        yield { type: "done", result: result("") };
      } finally {
        closed.resolve();
      }
    });
    const reader = handle.response.body!.getReader();
    expect(contents(payloads(await readChunk(reader)))).toEqual(["first"]);
    const reason = new Error("client went away");
    await reader.cancel(reason);
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBe(reason);
    expect(adapter.signals).toEqual([controller.signal]);
    await closed.promise;
    expect(yieldedAfterGate).toBe(false);
    expect(await handle.finished).toBeUndefined();
    expectIntervalsCleared(intervals);
  });

  it("an adapter that ignores the signal is closed at its next yield, without running on", async () => {
    const gate = deferred();
    const closed = deferred();
    let yielded = 0;
    const { handle, controller, intervals } = await start(async function* () {
      try {
        yield { type: "start", id: "resp_1", model: "m" };
        yield { type: "text_delta", delta: "first" };
        await gate.promise;
        for (let i = 0; i < 100; i++) {
          yielded++;
          yield { type: "text_delta", delta: `late${i}` };
        }
        yield { type: "done", result: result("") };
      } finally {
        closed.resolve();
      }
    });
    const reader = handle.response.body!.getReader();
    expect(contents(payloads(await readChunk(reader)))).toEqual(["first"]);
    await reader.cancel();
    expect(controller.signal.aborted).toBe(true);
    expect(await handle.finished).toBeUndefined();
    gate.resolve();
    await closed.promise;
    // The delta in flight when the return request was queued, at most: then the generator closes.
    expect(yielded).toBeLessThanOrEqual(1);
    expectIntervalsCleared(intervals);
  });
});
