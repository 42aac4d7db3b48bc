/**
 * Unit tests of the retry / fallback routing of resilientModel, with in-process fake adapters
 * (no HTTP): which candidate is called how often, with what request, and what the caller sees.
 * Delays are tiny (retry-after 0..5 ms, jitter ceilings of 1-2 ms); nothing synchronises on
 * sleeps — the abort tests wait for the "retrying" log line, written just before the backoff.
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { ModelAdapter } from "../../src/adapters/types.ts";
import { GatewayError, type ChatModel, type ChatRequest, type ChatResult, type SchemaTarget, type StreamEvent, type ToolDefinition } from "../../src/core/index.ts";
import { silentLogger, type Logger } from "../../src/core/logger.ts";
import { resilientModel } from "../../src/gateway/routing/resilient-model.ts";
import type { ModelCandidate } from "../../src/gateway/routing/resolve-model.ts";
import type { RetryPolicy } from "../../src/gateway/routing/retry-policy.ts";
import { MemoryTools, deferred } from "../helpers/scripted-model.ts";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** One scripted call: stream `events`, then throw `fail` (if set); complete returns `result` or throws. */
interface Step {
  events?: StreamEvent[];
  fail?: unknown;
  result?: ChatResult;
}

function result(id: string, model = "m"): ChatResult {
  return { id, model, message: { role: "assistant", content: [{ type: "text", text: id }] }, stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
}

/** A ModelAdapter answering from a script (the last step repeats), recording every call. */
class FakeAdapter implements ModelAdapter {
  readonly requests: ChatRequest[] = [];
  readonly signals: (AbortSignal | undefined)[] = [];
  /** Stream generators whose `finally` ran. */
  finalized = 0;

  constructor(
    readonly id: string,
    private readonly steps: Step[],
  ) {}

  get calls(): number {
    return this.requests.length;
  }

  private step(request: ChatRequest, signal: AbortSignal | undefined): Step {
    this.requests.push(request);
    this.signals.push(signal);
    return this.steps[Math.min(this.requests.length - 1, this.steps.length - 1)]!;
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const step = this.step(request, signal);
    if (step.fail !== undefined) throw step.fail;
    return step.result ?? result(`${this.id}-${this.calls}`, request.model);
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const step = this.step(request, signal);
    try {
      for (const event of step.events ?? []) yield event;
      if (step.fail !== undefined) throw step.fail;
    } finally {
      this.finalized++;
    }
  }
}

function candidate(adapter: FakeAdapter, modelId: string, schemaTarget: SchemaTarget = "openai"): ModelCandidate {
  return {
    provider: { name: adapter.id, type: "openai", config: { type: "openai", name: adapter.id, missingVariables: [] }, schemaTarget, adapter },
    modelId,
  };
}

function upstream(status: number, options: { retryable?: boolean; retryAfterMs?: number; code?: string; message?: string } = {}): GatewayError {
  return new GatewayError(options.message ?? `upstream ${status}`, {
    status,
    type: status === 429 ? "rate_limit_error" : status < 500 ? "invalid_request_error" : "api_error",
    code: options.code ?? `upstream_${status}`,
    retryable: options.retryable ?? false,
    ...(options.retryAfterMs === undefined ? {} : { retryAfterMs: options.retryAfterMs }),
  });
}

const retryable503 = (message?: string, retryAfterMs?: number) =>
  upstream(503, { retryable: true, ...(message === undefined ? {} : { message }), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });

function policy(overrides: Partial<RetryPolicy> = {}): RetryPolicy {
  return { attempts: 3, initialDelayMs: 1, maxDelayMs: 2, budgetMs: 1_000, ...overrides };
}

interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** A real pino logger whose lines are parsed into `lines`; `onLine` sees each one as it is written. */
function recordingLogger(onLine?: (line: LogLine) => void): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level: "debug" },
    {
      write(text: string) {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        onLine?.(line);
      },
    },
  );
  return { logger, lines };
}

function model(candidates: ModelCandidate[], options: { policy?: RetryPolicy; logger?: Logger; tools?: MemoryTools; schemaTarget?: SchemaTarget } = {}): ChatModel {
  return resilientModel({
    candidates,
    tools: options.tools ?? new MemoryTools({}),
    schemaTarget: options.schemaTarget ?? candidates[0]!.provider.schemaTarget,
    policy: options.policy ?? policy(),
    logger: options.logger ?? silentLogger(),
  });
}

function request(overrides: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "requested-alias", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], ...overrides };
}

/**
 * Drains a stream; returns the events seen (without the answering provider the routing stamps on
 * `start` and `done`, which `providers` lists) and the error it ended with (if any).
 */
async function drain(stream: AsyncIterable<StreamEvent>): Promise<{ events: StreamEvent[]; error: unknown; providers: (string | undefined)[] }> {
  const events: StreamEvent[] = [];
  const providers: (string | undefined)[] = [];
  const unstamped = (event: StreamEvent): StreamEvent => {
    if (event.type === "start") {
      const { provider, ...rest } = event;
      providers.push(provider);
      return rest;
    }
    if (event.type === "done") {
      const { provider, ...result } = event.result;
      providers.push(provider);
      return { ...event, result };
    }
    return event;
  };
  try {
    for await (const event of stream) events.push(unstamped(event));
    return { events, error: undefined, providers };
  } catch (error) {
    return { events, error, providers };
  }
}

const start = (id: string): StreamEvent => ({ type: "start", id, model: "m" });
const usage: StreamEvent = { type: "usage", usage: { inputTokens: 1, outputTokens: 0 } };
function answer(id: string, text: string): StreamEvent[] {
  return [
    start(id),
    { type: "text_start" },
    { type: "text_delta", delta: text },
    { type: "text_end", text },
    { type: "usage", usage: { inputTokens: 1, outputTokens: 1 } },
    { type: "done", result: result(id) },
  ];
}

/** A tool set whose definitions differ per dialect and are cached (stable identity), like the registry. */
class DialectTools extends MemoryTools {
  private readonly cache = new Map<SchemaTarget, ToolDefinition[]>();
  override definitions(target: SchemaTarget): ToolDefinition[] {
    if (!this.cache.has(target)) this.cache.set(target, [{ name: "lookup", description: target, inputSchema: { type: "object" } }]);
    return this.cache.get(target)!;
  }
}

// ---------------------------------------------------------------------------------------------
// complete
// ---------------------------------------------------------------------------------------------

describe("resilientModel.complete: retries", () => {
  it("answers with the first call's result when it succeeds (one call, no log)", async () => {
    const a = new FakeAdapter("a", [{ result: result("first") }]);
    const { logger, lines } = recordingLogger();
    const controller = new AbortController();
    const out = await model([candidate(a, "a-model")], { logger }).complete(request(), controller.signal);
    expect(out.id).toBe("first");
    expect(a.calls).toBe(1);
    expect(a.signals[0]).toBe(controller.signal);
    expect(lines).toEqual([]);
  });

  it("retries a retryable failure on the same candidate and returns the second call's result", async () => {
    const ok = result("second");
    const a = new FakeAdapter("a", [{ fail: retryable503() }, { result: ok }]);
    const b = new FakeAdapter("b", [{ result: result("fallback") }]);
    const { logger, lines } = recordingLogger();
    const out = await model([candidate(a, "a-model"), candidate(b, "b-model")], { logger }).complete(request());
    // The result, stamped with the provider that answered.
    expect(out).toEqual({ ...ok, provider: "a" });
    expect(a.requests.map((r) => r.model)).toEqual(["a-model", "a-model"]);
    expect(b.calls).toBe(0);
    expect(lines.map((l) => l.msg)).toEqual(["retrying upstream call"]);
    expect(lines[0]).toMatchObject({ provider: "a", attempt: 1, err: "upstream 503" });
  });

  it("honours retry-after as the delay (logged as delayMs)", async () => {
    const a = new FakeAdapter("a", [{ fail: retryable503("busy", 3) }, {}]);
    const { logger, lines } = recordingLogger();
    await model([candidate(a, "a-model")], { logger }).complete(request());
    expect(a.calls).toBe(2);
    expect(lines[0]).toMatchObject({ msg: "retrying upstream call", delayMs: 3 });
  });

  it("stops after `attempts` calls and throws the last failure when there is no fallback", async () => {
    const errors = [retryable503("one"), retryable503("two"), retryable503("three"), retryable503("four")];
    const a = new FakeAdapter("a", errors.map((fail) => ({ fail })));
    const { logger, lines } = recordingLogger();
    await expect(model([candidate(a, "a-model")], { policy: policy({ attempts: 3 }), logger }).complete(request())).rejects.toBe(errors[2]);
    expect(a.calls).toBe(3);
    expect(lines.map((l) => l.attempt)).toEqual([1, 2]);
  });

  it("with attempts = 1 never retries", async () => {
    const fail = retryable503();
    const a = new FakeAdapter("a", [{ fail }, {}]);
    await expect(model([candidate(a, "a-model")], { policy: policy({ attempts: 1 }) }).complete(request())).rejects.toBe(fail);
    expect(a.calls).toBe(1);
  });
});

describe("resilientModel.complete: attempts are per candidate", () => {
  it("calls each always-failing candidate `attempts` times and throws the last candidate's error", async () => {
    const errA = retryable503("a down");
    const errB = retryable503("b down");
    const a = new FakeAdapter("a", [{ fail: errA }]);
    const b = new FakeAdapter("b", [{ fail: errB }]);
    const { logger, lines } = recordingLogger();
    await expect(model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ attempts: 2 }), logger }).complete(request())).rejects.toBe(errB);
    expect(a.calls).toBe(2);
    expect(b.calls).toBe(2);
    expect(a.requests.every((r) => r.model === "a-model")).toBe(true);
    expect(b.requests.every((r) => r.model === "b-model")).toBe(true);
    expect(lines.map((l) => [l.msg, l.provider ?? `${String(l.from)} -> ${String(l.to)}`])).toEqual([
      ["retrying upstream call", "a"],
      ["falling back to the next provider", "a/a-model -> b/b-model"],
      ["retrying upstream call", "b"],
    ]);
  });

  it("restarts the attempt count on the fallback: its retry can still succeed", async () => {
    const a = new FakeAdapter("a", [{ fail: retryable503() }]);
    const b = new FakeAdapter("b", [{ fail: retryable503() }, { result: result("b ok") }]);
    const out = await model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ attempts: 2 }) }).complete(request());
    expect(out.id).toBe("b ok");
    expect([a.calls, b.calls]).toEqual([2, 2]);
  });

  it("tries a third candidate after two exhausted ones", async () => {
    const a = new FakeAdapter("a", [{ fail: retryable503() }]);
    const b = new FakeAdapter("b", [{ fail: retryable503() }]);
    const c = new FakeAdapter("c", [{}]);
    const out = await model([candidate(a, "a-model"), candidate(b, "b-model"), candidate(c, "c-model")], { policy: policy({ attempts: 2 }) }).complete(request());
    expect(out.id).toBe("c-1");
    expect([a.calls, b.calls, c.calls]).toEqual([2, 2, 1]);
  });
});

describe("resilientModel: a fallback that answered is kept for the request's later calls", () => {
  it("complete: the next call (the loop's next turn) starts at the fallback, without the primary's retries", async () => {
    const a = new FakeAdapter("a", [{ fail: retryable503() }]);
    const b = new FakeAdapter("b", [{}]);
    const chat = model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ attempts: 2 }) });
    expect((await chat.complete(request())).id).toBe("b-1");
    expect((await chat.complete(request())).id).toBe("b-2");
    expect([a.calls, b.calls]).toEqual([2, 2]);
  });

  it("stream: likewise; a failing fallback still goes on down the list, never back up", async () => {
    const a = new FakeAdapter("a", [{ fail: upstream(500) }]);
    const b = new FakeAdapter("b", [{ events: answer("b1", "one") }, { fail: upstream(500) }]);
    const c = new FakeAdapter("c", [{ events: answer("c1", "two") }]);
    const chat = model([candidate(a, "a-model"), candidate(b, "b-model"), candidate(c, "c-model")]);
    expect((await drain(chat.stream(request()))).error).toBeUndefined();
    const second = await drain(chat.stream(request()));
    expect(second.error).toBeUndefined();
    expect(second.events.at(-1)).toEqual({ type: "done", result: result("c1") });
    expect([a.calls, b.calls, c.calls]).toEqual([1, 2, 1]);
  });

  it("a new model (the next request) starts at the primary again", async () => {
    const a = new FakeAdapter("a", [{ fail: upstream(500) }, {}]);
    const b = new FakeAdapter("b", [{}]);
    const candidates = [candidate(a, "a-model"), candidate(b, "b-model")];
    expect((await model(candidates).complete(request())).id).toBe("b-1");
    expect((await model(candidates).complete(request())).id).toBe("a-2");
  });
});

describe("resilientModel.complete: the wait budget", () => {
  it("does not retry when retry-after exceeds the budget: throws at once with one candidate", async () => {
    const fail = retryable503("slow down", 5_000);
    const a = new FakeAdapter("a", [{ fail }, {}]);
    const { logger, lines } = recordingLogger();
    await expect(model([candidate(a, "a-model")], { policy: policy({ budgetMs: 1_000 }), logger }).complete(request())).rejects.toBe(fail);
    expect(a.calls).toBe(1);
    expect(lines).toEqual([]);
  });

  it("falls back at once when retry-after exceeds the budget", async () => {
    const a = new FakeAdapter("a", [{ fail: retryable503("slow down", 5_000) }, {}]);
    const b = new FakeAdapter("b", [{}]);
    const { logger, lines } = recordingLogger();
    const out = await model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ budgetMs: 1_000 }), logger }).complete(request());
    expect(out.id).toBe("b-1");
    expect([a.calls, b.calls]).toEqual([1, 1]);
    expect(lines.map((l) => l.msg)).toEqual(["falling back to the next provider"]);
    expect(lines[0]).toMatchObject({ from: "a/a-model", to: "b/b-model", status: 503 });
  });

  it("a delay exactly equal to the remaining budget is still waited", async () => {
    const a = new FakeAdapter("a", [{ fail: retryable503("x", 5) }, {}]);
    const out = await model([candidate(a, "a-model")], { policy: policy({ budgetMs: 5 }) }).complete(request());
    expect(out.id).toBe("a-2");
  });

  it("counts the waits cumulatively: retries stop once the next wait would overrun the budget", async () => {
    const fail = retryable503("x", 3);
    const a = new FakeAdapter("a", [{ fail }]);
    // waits 3 (total 3), 3 (total 6), then 3 more would make 9 > 7
    await expect(model([candidate(a, "a-model")], { policy: policy({ attempts: 10, budgetMs: 7 }) }).complete(request())).rejects.toBe(fail);
    expect(a.calls).toBe(3);
  });

  it("shares the budget across candidates", async () => {
    const errB = retryable503("b", 3);
    const a = new FakeAdapter("a", [{ fail: retryable503("a", 3) }]);
    const b = new FakeAdapter("b", [{ fail: errB }, {}]);
    // a: call, wait 3, call (attempts used up) -> b: call, wait 3 would make 6 > 5 -> throw
    await expect(model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ attempts: 2, budgetMs: 5 }) }).complete(request())).rejects.toBe(errB);
    expect([a.calls, b.calls]).toEqual([2, 1]);
  });
});

describe("resilientModel.complete: which failures fall back", () => {
  it.each([400, 413, 422])("a non-retryable %i neither retries nor falls back", async (status) => {
    const fail = upstream(status);
    const a = new FakeAdapter("a", [{ fail }, {}]);
    const b = new FakeAdapter("b", [{}]);
    const { logger, lines } = recordingLogger();
    await expect(model([candidate(a, "a-model"), candidate(b, "b-model")], { logger }).complete(request())).rejects.toBe(fail);
    expect([a.calls, b.calls]).toEqual([1, 0]);
    expect(lines).toEqual([]);
  });

  it("a retryable 400 (e.g. Groq's tool_use_failed) is retried, but never falls back", async () => {
    const fail = upstream(400, { retryable: true, code: "tool_use_failed" });
    const a = new FakeAdapter("a", [{ fail }]);
    const b = new FakeAdapter("b", [{}]);
    await expect(model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ attempts: 2 }) }).complete(request())).rejects.toBe(fail);
    expect([a.calls, b.calls]).toEqual([2, 0]);
  });

  it.each([
    ["upstream credentials refused (502 upstream_authentication_error)", () => upstream(502, { code: "upstream_authentication_error" })],
    ["upstream permission refused (502 upstream_permission_error)", () => upstream(502, { code: "upstream_permission_error" })],
    ["a bare 401", () => upstream(401)],
    ["a bare 403", () => upstream(403)],
    ["a 404 (model unknown at this provider)", () => upstream(404)],
    ["a non-retryable 500", () => upstream(500)],
    ["a non-retryable 503", () => upstream(503)],
  ])("%s falls back without retrying", async (_name, make) => {
    const a = new FakeAdapter("a", [{ fail: make() }, {}]);
    const b = new FakeAdapter("b", [{}]);
    const out = await model([candidate(a, "a-model"), candidate(b, "b-model")]).complete(request());
    expect(out.id).toBe("b-1");
    expect([a.calls, b.calls]).toEqual([1, 1]);
  });

  it("a non-GatewayError becomes an internal 500: not retried, falls back, thrown as GatewayError with the cause", async () => {
    const boom = new TypeError("boom");
    const a = new FakeAdapter("a", [{ fail: boom }]);
    const b = new FakeAdapter("b", [{ fail: boom }]);
    const error = await model([candidate(a, "a-model"), candidate(b, "b-model")]).complete(request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 500, code: "internal_error", cause: boom });
    expect([a.calls, b.calls]).toEqual([1, 1]);
  });
});

describe("resilientModel.complete: aborts", () => {
  it.each(["client_closed", "request_aborted"])("a %s failure neither retries nor falls back", async (code) => {
    const fail = upstream(499, { code });
    const a = new FakeAdapter("a", [{ fail }, {}]);
    const b = new FakeAdapter("b", [{}]);
    await expect(model([candidate(a, "a-model"), candidate(b, "b-model")]).complete(request())).rejects.toBe(fail);
    expect([a.calls, b.calls]).toEqual([1, 0]);
  });

  it("with the signal aborted, even a retryable failure neither retries nor falls back", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const fail = retryable503();
    const a = new FakeAdapter("a", [{ fail }, {}]);
    const b = new FakeAdapter("b", [{}]);
    const { logger, lines } = recordingLogger();
    await expect(model([candidate(a, "a-model"), candidate(b, "b-model")], { logger }).complete(request(), controller.signal)).rejects.toBe(fail);
    expect([a.calls, b.calls]).toEqual([1, 0]);
    expect(lines).toEqual([]);
  });

  it("aborting during a backoff rejects promptly with the signal's reason, and nothing more is called", { timeout: 5_000 }, async () => {
    const controller = new AbortController();
    const reason = new GatewayError("the client closed the connection", { status: 499, type: "api_error", code: "client_closed" });
    const backingOff = deferred();
    const { logger } = recordingLogger((line) => line.msg === "retrying upstream call" && backingOff.resolve());
    const a = new FakeAdapter("a", [{ fail: retryable503("busy", 60_000) }, {}]);
    const b = new FakeAdapter("b", [{}]);
    const pending = model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ budgetMs: 120_000 }), logger }).complete(request(), controller.signal);
    await backingOff.promise;
    const abortedAt = Date.now();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(Date.now() - abortedAt).toBeLessThan(1_000);
    expect([a.calls, b.calls]).toEqual([1, 0]);
  });
});

// ---------------------------------------------------------------------------------------------
// stream
// ---------------------------------------------------------------------------------------------

describe("resilientModel.stream", () => {
  it("retries a failure before any visible event (only start/usage) and delivers the second attempt", async () => {
    const second = answer("s2", "hello");
    const a = new FakeAdapter("a", [{ events: [start("s1"), usage], fail: retryable503() }, { events: second }]);
    const b = new FakeAdapter("b", [{ events: answer("b", "fallback") }]);
    const { events, error } = await drain(model([candidate(a, "a-model"), candidate(b, "b-model")]).stream(request()));
    expect(error).toBeUndefined();
    // The invisible events of the failed attempt went through; then the whole second attempt.
    expect(events).toEqual([start("s1"), usage, ...second]);
    expect(events.slice(2)).toEqual(second);
    expect(a.requests.map((r) => r.model)).toEqual(["a-model", "a-model"]);
    expect(a.finalized).toBe(2);
    expect(b.calls).toBe(0);
  });

  it("falls back before any visible event, delivering the fallback's events", async () => {
    const fromB = answer("b", "fallback");
    const a = new FakeAdapter("a", [{ events: [start("a")], fail: upstream(500) }]);
    const b = new FakeAdapter("b", [{ events: fromB }]);
    const { events, error, providers } = await drain(model([candidate(a, "a-model"), candidate(b, "b-model")]).stream(request()));
    expect(error).toBeUndefined();
    expect(events).toEqual([start("a"), ...fromB]);
    // Each start says who is answering, and the result who answered: the fallback.
    expect(providers).toEqual(["a", "b", "b"]);
    expect([a.calls, b.calls]).toEqual([1, 1]);
    expect(b.requests[0]!.model).toBe("b-model");
  });

  it.each<[string, StreamEvent]>([
    ["text_start", { type: "text_start" }],
    ["text_delta", { type: "text_delta", delta: "Hel" }],
    ["reasoning_start", { type: "reasoning_start" }],
    ["tool_call_start", { type: "tool_call_start", index: 0, id: "c1", name: "lookup" }],
  ])("a failure after a visible %s is thrown to the consumer: no retry, no fallback", async (_name, visible) => {
    const fail = retryable503();
    const a = new FakeAdapter("a", [{ events: [start("a"), visible, usage], fail }, { events: answer("a2", "retried") }]);
    const b = new FakeAdapter("b", [{ events: answer("b", "fallback") }]);
    const { logger, lines } = recordingLogger();
    const { events, error } = await drain(model([candidate(a, "a-model"), candidate(b, "b-model")], { logger }).stream(request()));
    expect(error).toBe(fail);
    expect(events).toEqual([start("a"), visible, usage]);
    expect([a.calls, b.calls]).toEqual([1, 0]);
    expect(lines).toEqual([]);
  });

  it("exhausts the attempts of each candidate like complete does", async () => {
    const errB = retryable503("b down");
    const a = new FakeAdapter("a", [{ events: [start("a")], fail: retryable503("a down") }]);
    const b = new FakeAdapter("b", [{ fail: errB }]);
    const { events, error } = await drain(model([candidate(a, "a-model"), candidate(b, "b-model")], { policy: policy({ attempts: 2 }) }).stream(request()));
    expect(error).toBe(errB);
    expect(events).toEqual([start("a"), start("a")]);
    expect([a.calls, b.calls]).toEqual([2, 2]);
  });

  it("with the signal aborted, a failure before visible output neither retries nor falls back", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const fail = retryable503();
    const a = new FakeAdapter("a", [{ events: [start("a")], fail }, { events: answer("a2", "x") }]);
    const b = new FakeAdapter("b", [{ events: answer("b", "x") }]);
    const { error } = await drain(model([candidate(a, "a-model"), candidate(b, "b-model")]).stream(request(), controller.signal));
    expect(error).toBe(fail);
    expect([a.calls, b.calls]).toEqual([1, 0]);
    expect(a.signals[0]).toBe(controller.signal);
  });

  it("aborting during a stream's backoff rejects promptly with the signal's reason", { timeout: 5_000 }, async () => {
    const controller = new AbortController();
    const reason = new Error("client went away");
    const backingOff = deferred();
    const { logger } = recordingLogger((line) => line.msg === "retrying upstream call" && backingOff.resolve());
    const a = new FakeAdapter("a", [{ events: [start("a")], fail: retryable503("busy", 60_000) }, { events: answer("a2", "x") }]);
    const pending = drain(model([candidate(a, "a-model")], { policy: policy({ budgetMs: 120_000 }), logger }).stream(request(), controller.signal));
    await backingOff.promise;
    controller.abort(reason);
    const { events, error } = await pending;
    expect(error).toBe(reason);
    expect(events).toEqual([start("a")]);
    expect(a.calls).toBe(1);
  });

  it("a consumer stopping early closes the adapter's stream and makes no further attempt", async () => {
    const a = new FakeAdapter("a", [{ events: [start("a"), { type: "text_start" }, { type: "text_delta", delta: "one" }, { type: "text_delta", delta: "two" }], fail: retryable503() }, { events: answer("a2", "x") }]);
    const b = new FakeAdapter("b", [{ events: answer("b", "x") }]);
    const stream = model([candidate(a, "a-model"), candidate(b, "b-model")]).stream(request());
    const seen: StreamEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === "text_delta") break;
    }
    expect(seen.map((e) => e.type)).toEqual(["start", "text_start", "text_delta"]);
    expect(a.finalized).toBe(1);
    expect([a.calls, b.calls]).toEqual([1, 0]);
  });

  it("a consumer stopping after only invisible events also makes no further attempt", async () => {
    const a = new FakeAdapter("a", [{ events: [start("a"), usage], fail: retryable503() }, { events: answer("a2", "x") }]);
    const b = new FakeAdapter("b", [{ events: answer("b", "x") }]);
    const iterator = model([candidate(a, "a-model"), candidate(b, "b-model")]).stream(request())[Symbol.asyncIterator]();
    expect(await iterator.next()).toEqual({ done: false, value: { ...start("a"), provider: "a" } });
    expect(await iterator.return!()).toEqual({ done: true, value: undefined });
    expect(a.finalized).toBe(1);
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    expect([a.calls, b.calls]).toEqual([1, 0]);
  });
});

// ---------------------------------------------------------------------------------------------
// the request each candidate gets
// ---------------------------------------------------------------------------------------------

describe("resilientModel: the request given to each candidate", () => {
  const clientTool: ToolDefinition = { name: "lookup", description: "client's", inputSchema: { type: "object", properties: { q: { type: "string" } } } };

  function setup() {
    const tools = new DialectTools({ lookup: () => "" });
    const a = new FakeAdapter("a", [{ fail: upstream(500) }]);
    const b = new FakeAdapter("b", [{ fail: upstream(500) }]);
    const c = new FakeAdapter("c", [{ events: answer("c", "ok") }]);
    const candidates = [candidate(a, "a-model", "openai"), candidate(b, "org/b-model", "anthropic"), candidate(c, "c-model", "openai")];
    const chat = model(candidates, { tools, schemaTarget: "openai" });
    const original = request({ temperature: 0.5, tools: [...tools.definitions("openai"), clientTool] });
    return { tools, a, b, c, chat, original };
  }

  function checkRequests({ tools, a, b, c, original }: ReturnType<typeof setup>): void {
    const [ra, rb, rc] = [a.requests[0]!, b.requests[0]!, c.requests[0]!];
    expect([ra.model, rb.model, rc.model]).toEqual(["a-model", "org/b-model", "c-model"]);
    // Same dialect as the loop normalized to: the very same definitions.
    expect(ra.tools![0]).toBe(tools.definitions("openai")[0]);
    expect(rc.tools![0]).toBe(tools.definitions("openai")[0]);
    // Another dialect: the gateway's tool re-normalized, the client's same-named tool untouched.
    expect(rb.tools![0]).toBe(tools.definitions("anthropic")[0]);
    expect(rb.tools![0]).not.toBe(tools.definitions("openai")[0]);
    for (const r of [ra, rb, rc]) {
      expect(r.tools).toHaveLength(2);
      expect(r.tools![1]).toBe(clientTool);
      expect(r.messages).toBe(original.messages);
      expect(r.temperature).toBe(0.5);
    }
    // The caller's request is not modified.
    expect(original.model).toBe("requested-alias");
    expect(original.tools![0]).toBe(tools.definitions("openai")[0]);
  }

  it("complete: model = the candidate's modelId, tools retargeted to its dialect", async () => {
    const s = setup();
    await s.chat.complete(s.original);
    expect([s.a.calls, s.b.calls, s.c.calls]).toEqual([1, 1, 1]);
    checkRequests(s);
  });

  it("stream: model = the candidate's modelId, tools retargeted to its dialect", async () => {
    const s = setup();
    const { error } = await drain(s.chat.stream(s.original));
    expect(error).toBeUndefined();
    expect([s.a.calls, s.b.calls, s.c.calls]).toEqual([1, 1, 1]);
    checkRequests(s);
  });

  it("a request without tools gets none on a fallback either", async () => {
    const tools = new DialectTools({ lookup: () => "" });
    const a = new FakeAdapter("a", [{ fail: upstream(500) }]);
    const b = new FakeAdapter("b", [{}]);
    await model([candidate(a, "a-model", "openai"), candidate(b, "b-model", "anthropic")], { tools }).complete(request());
    expect(b.requests[0]!.model).toBe("b-model");
    expect("tools" in b.requests[0]!).toBe(false);
  });
});
