/**
 * An alias's deployments, without HTTP: the config's rules, the order resolveModel gives, the
 * router's spreading (smooth weighted round-robin, least-busy) and cooldowns (shared through a
 * store, kept in the process when the store fails, ended by the clock), and the resilient model
 * trying the other deployments before the fallbacks. The clock is injected: nothing sleeps.
 */
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { ModelAdapter } from "../../src/adapters/types.ts";
import { ConfigError, resolveConfig, type GatewayConfig } from "../../src/core/config/index.ts";
import { GatewayError, type ChatRequest, type ChatResult, type StreamEvent } from "../../src/core/index.ts";
import { silentLogger, type Logger } from "../../src/core/logger.ts";
import { DeploymentRouter } from "../../src/gateway/routing/deployments.ts";
import { buildProviders } from "../../src/gateway/routing/providers.ts";
import { resilientModel } from "../../src/gateway/routing/resilient-model.ts";
import { resolveModel, type ResolvedModel } from "../../src/gateway/routing/resolve-model.ts";
import { MemoryBackend, MemoryStore, type StateBackend, type StateStore } from "../../src/gateway/state/store.ts";
import { MemoryTools } from "../helpers/scripted-model.ts";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function problemsOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

const PROVIDERS = { east: { type: "openai", apiKey: "k" }, west: { type: "openai", apiKey: "k" }, north: { type: "openai", apiKey: "k" }, backup: { type: "anthropic", apiKey: "k" }, nokey: { type: "openai", apiKey: "${UNSET}" } };

function configWith(models: Record<string, unknown>): GatewayConfig {
  return resolveConfig({ providers: PROVIDERS, models }, {});
}

/** An adapter per provider that answers from `behaviour` (by provider name and call number), recording calls. */
class Fake implements ModelAdapter {
  calls = 0;
  constructor(
    readonly id: string,
    private readonly behaviour: (call: number) => Error | undefined = () => undefined,
    private readonly onCall?: () => Promise<void>,
  ) {}
  async complete(request: ChatRequest): Promise<ChatResult> {
    const failure = this.behaviour(++this.calls);
    await this.onCall?.();
    if (failure) throw failure;
    return { id: this.id, model: request.model, message: { role: "assistant", content: [{ type: "text", text: this.id }] }, stopReason: "stop", usage: { inputTokens: 1, outputTokens: 1 } };
  }
  async *stream(request: ChatRequest): AsyncGenerator<StreamEvent> {
    const result = await this.complete(request);
    yield { type: "start", id: result.id, model: result.model };
    yield { type: "text_delta", delta: this.id };
    yield { type: "done", result };
  }
}

function routed(config: GatewayConfig, fakes: Record<string, Fake> = {}) {
  const providers = buildProviders(config.providers, (c) => fakes[c.name] ?? new Fake(c.name));
  return (name: string) => resolveModel(name, providers, config.models);
}

const names = (model: ResolvedModel) => model.candidates.map((c) => `${c.provider.name}/${c.modelId}`);

function unavailable(status: number, retryAfterMs?: number): GatewayError {
  return new GatewayError(`upstream ${status}`, { status, type: "api_error", code: `upstream_${status}`, retryable: status === 429 || status >= 500, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
}

/** A backend whose tables of one namespace are shared by every router built on it (as in Redis). */
class SharedBackend implements StateBackend {
  readonly kind = "redis" as const;
  readonly counters = new MemoryBackend().counters;
  readonly tables = new Map<string, MemoryStore<object>>();
  failing = false;
  table<T extends object>(namespace: string): StateStore<T> {
    if (!this.tables.has(namespace)) this.tables.set(namespace, new MemoryStore<object>());
    const table = this.tables.get(namespace)! as unknown as StateStore<T>;
    const guard = async <R>(run: () => Promise<R>) => {
      if (this.failing) throw new GatewayError("store down", { status: 503, type: "api_error", code: "store_unavailable" });
      return run();
    };
    return { get: (key) => guard(() => table.get(key)), set: (key, value) => guard(() => table.set(key, value)), setJson: (key, json) => guard(() => table.setJson(key, json)), delete: (key) => guard(() => table.delete(key)) };
  }
  health() {
    return { kind: "redis" as const, status: "ok" as const };
  }
  async close() {}
}

function recordingLogger(): { logger: Logger; lines: { msg: string; [key: string]: unknown }[] } {
  const lines: { msg: string }[] = [];
  return { logger: pino({ level: "debug" }, { write: (text: string) => void lines.push(JSON.parse(text)) }), lines };
}

class Clock {
  ms = 1_000_000;
  now = () => this.ms;
}

// ---------------------------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------------------------

describe("config: models.<alias>.deployments", () => {
  it("accepts deployments with weights, a strategy and a cooldown, and keeps fallbacks", () => {
    const config = configWith({
      gpt: { deployments: [{ model: "east/gpt-4.1", weight: 3 }, { model: "west/gpt-4.1" }], strategy: "least-busy", cooldownMs: 5000, fallbacks: ["backup/claude"] },
    });
    expect(config.models.gpt).toMatchObject({ deployments: [{ model: "east/gpt-4.1", weight: 3 }, { model: "west/gpt-4.1" }], strategy: "least-busy", cooldownMs: 5000 });
  });

  it("names every bad field", () => {
    const problems = problemsOf(() =>
      configWith({
        both: { model: "east/m", deployments: [{ model: "west/m" }] },
        neither: { fallbacks: ["east/m"] },
        empty: { deployments: [] },
        twice: { deployments: [{ model: "east/m" }, { model: "west/m" }, { model: "east/m" }] },
        lonely: { model: "east/m", strategy: "weighted", cooldownMs: 10 },
        typo: { deployments: [{ model: "east/m", wieght: 2 }] },
        bad: { deployments: [{ model: "east/m", weight: 0 }, { model: "east/n", weight: 1.5 }], strategy: "random", cooldownMs: -1 },
      }),
    );
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath["models.both.deployments"]).toBe('give either "model" or "deployments", not both');
    expect(byPath["models.neither.model"]).toMatch(/^required: an alias needs "model" \("provider\/model"\) or "deployments"/);
    expect(byPath["models.empty.deployments"]).toMatch(/at least one deployment/);
    expect(byPath["models.twice.deployments[2].model"]).toBe('"east/m" is listed twice (also deployments[0])');
    expect(byPath["models.lonely.strategy"]).toBe('"strategy" applies to "deployments" only');
    expect(byPath["models.lonely.cooldownMs"]).toBe('"cooldownMs" applies to "deployments" only');
    expect(byPath["models.typo.deployments[0].wieght"]).toBe('unknown key "wieght" (did you mean "weight"?)');
    expect(Object.keys(byPath)).toEqual(expect.arrayContaining(["models.bad.deployments[0].weight", "models.bad.deployments[1].weight", "models.bad.strategy", "models.bad.cooldownMs"]));
  });

  it("checks that each deployment names a configured provider", () => {
    const problems = problemsOf(() => configWith({ gpt: { deployments: [{ model: "east/m" }, { model: "south/m" }] } }));
    expect(problems).toEqual([{ path: "models.gpt.deployments[1].model", message: expect.stringMatching(/^expected "provider\/model" with a configured provider .*got "south\/m"$/) }]);
  });
});

// ---------------------------------------------------------------------------------------------
// resolveModel
// ---------------------------------------------------------------------------------------------

describe("resolveModel with deployments", () => {
  it("lists the deployments in config order, marked, then the fallbacks; unavailable ones are left out", () => {
    const resolve = routed(
      configWith({
        gpt: { deployments: [{ model: "east/gpt", weight: 3 }, { model: "nokey/gpt" }, { model: "west/gpt" }], cooldownMs: 7, fallbacks: ["backup/claude"] },
      }),
    );
    const model = resolve("gpt");
    expect(names(model)).toEqual(["east/gpt", "west/gpt", "backup/claude"]);
    expect(model.candidates.map((c) => c.deployment)).toEqual([{ ref: "east/gpt", weight: 3, cooldownMs: 7 }, { ref: "west/gpt", weight: 1, cooldownMs: 7 }, undefined]);
    expect(model.provider.name).toBe("east");
  });

  it("gives deployments the default cooldown of 30 s", () => {
    const model = routed(configWith({ gpt: { deployments: [{ model: "east/gpt" }] } }))("gpt");
    expect(model.candidates[0]!.deployment!.cooldownMs).toBe(30_000);
  });
});

// ---------------------------------------------------------------------------------------------
// Spreading
// ---------------------------------------------------------------------------------------------

describe("spreading", () => {
  const config = configWith({
    gpt: { deployments: [{ model: "east/gpt", weight: 3 }, { model: "west/gpt", weight: 1 }] },
    trio: { deployments: [{ model: "east/t" }, { model: "west/t" }, { model: "north/t" }] },
    busy: { deployments: [{ model: "east/b", weight: 2 }, { model: "west/b", weight: 1 }], strategy: "least-busy" },
  });
  const resolve = routed(config);

  it("weighted 3:1: exactly 3 of every 4 requests to the first, interleaved, the other deployment next", async () => {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const firsts: string[] = [];
    for (let i = 0; i < 400; i++) {
      const model = await router.route(resolve("gpt"));
      expect(model.candidates).toHaveLength(2);
      expect(model.candidates[1]).not.toBe(model.candidates[0]);
      expect(model.provider).toBe(model.candidates[0]!.provider);
      expect(model.modelId).toBe("gpt");
      firsts.push(model.provider.name);
    }
    expect(firsts.slice(0, 8)).toEqual(["east", "east", "west", "east", "east", "east", "west", "east"]);
    expect(firsts.filter((n) => n === "east")).toHaveLength(300);
    expect(firsts.filter((n) => n === "west")).toHaveLength(100);
  });

  it("equal weights: round-robin, each alias keeping its own turn", async () => {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      seen.push((await router.route(resolve("trio"))).provider.name);
      await router.route(resolve("gpt")); // another alias's turns do not shift this one's
    }
    expect(seen).toEqual(["east", "west", "north", "east", "west", "north"]);
  });

  it("least-busy: the deployment with the fewest calls in flight; when idle, by weight", async () => {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const first = await router.route(resolve("busy"));
    expect(first.provider.name).toBe("east");
    const endEast = router.begin(first.candidates[0]!);
    const second = await router.route(resolve("busy"));
    expect(names(second)).toEqual(["west/b", "east/b"]);
    const endWest = router.begin(second.candidates[0]!);
    const endWest2 = router.begin(second.candidates[0]!);
    expect(router.busy("west/b")).toBe(2);
    expect((await router.route(resolve("busy"))).provider.name).toBe("east");
    endEast();
    endEast(); // idempotent
    endWest();
    endWest2();
    expect(router.busy("east/b")).toBe(0);
    expect(router.busy("west/b")).toBe(0);
    // Idle again: the weighted round-robin decides (2:1).
    const idle: string[] = [];
    for (let i = 0; i < 6; i++) idle.push((await router.route(resolve("busy"))).provider.name);
    expect(idle.filter((n) => n === "east")).toHaveLength(4);
  });

  it("leaves a model without deployments as it is", async () => {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const model = resolve("east/direct");
    expect(await router.route(model)).toBe(model);
  });
});

// ---------------------------------------------------------------------------------------------
// Cooldowns
// ---------------------------------------------------------------------------------------------

describe("cooldowns", () => {
  const config = configWith({
    gpt: { deployments: [{ model: "east/gpt", weight: 3 }, { model: "west/gpt", weight: 1 }], cooldownMs: 10_000, fallbacks: ["backup/claude"] },
    never: { deployments: [{ model: "east/n" }, { model: "west/n" }], cooldownMs: 0 },
  });
  const resolve = routed(config);
  const east = () => resolve("gpt").candidates[0]!;

  it("a cooled-down deployment goes after the fallbacks until its cooldown ends", async () => {
    const clock = new Clock();
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger(), now: clock.now });
    await router.cooldown(east(), unavailable(503));
    for (let i = 0; i < 5; i++) expect(names(await router.route(resolve("gpt")))).toEqual(["west/gpt", "backup/claude", "east/gpt"]);
    clock.ms += 9_999;
    expect(names(await router.route(resolve("gpt")))[0]).toBe("west/gpt");
    clock.ms += 1;
    expect((await router.cooledDown(["east/gpt", "west/gpt"])).size).toBe(0);
    expect(names(await router.route(resolve("gpt")))).toEqual(["east/gpt", "west/gpt", "backup/claude"]);
  });

  it("every deployment cooled down: the fallbacks first, then the deployments, soonest back first", async () => {
    const clock = new Clock();
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger(), now: clock.now });
    await router.cooldown(east(), unavailable(503));
    clock.ms += 100;
    await router.cooldown(resolve("gpt").candidates[1]!, unavailable(500));
    expect(names(await router.route(resolve("gpt")))).toEqual(["backup/claude", "east/gpt", "west/gpt"]);
  });

  it("a retry-after longer than cooldownMs wins", async () => {
    const clock = new Clock();
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger(), now: clock.now });
    await router.cooldown(east(), unavailable(429, 60_000));
    clock.ms += 59_999;
    expect((await router.cooledDown(["east/gpt"])).get("east/gpt")).toBe(1_000_000 + 60_000);
    clock.ms += 1;
    expect((await router.cooledDown(["east/gpt"])).size).toBe(0);
  });

  it("cooldownMs 0: never cooled down", async () => {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    await router.cooldown(resolve("never").candidates[0]!, unavailable(503));
    expect((await router.cooledDown(["east/n"])).size).toBe(0);
  });

  it("shared through the store: another instance skips it, and remembers it when the store goes away", async () => {
    const clock = new Clock();
    const store = new SharedBackend();
    const a = new DeploymentRouter({ store, logger: silentLogger(), now: clock.now });
    const b = new DeploymentRouter({ store, logger: silentLogger(), now: clock.now });
    expect((await b.route(resolve("gpt"))).provider.name).toBe("east");
    await a.cooldown(east(), unavailable(503));
    expect(await store.tables.get("cooldowns")!.get("east/gpt")).toEqual({ until: clock.ms + 10_000, status: 503, code: "upstream_503" });
    expect((await b.route(resolve("gpt"))).provider.name).toBe("west");
    store.failing = true;
    expect((await b.route(resolve("gpt"))).provider.name).toBe("west");
  });

  it("store down: cooldowns are kept in the process, with one warning, and shared again once it is back", async () => {
    const clock = new Clock();
    const store = new SharedBackend();
    const { logger, lines } = recordingLogger();
    const a = new DeploymentRouter({ store, logger, now: clock.now });
    const b = new DeploymentRouter({ store, logger: silentLogger(), now: clock.now });
    store.failing = true;
    expect((await a.route(resolve("gpt"))).provider.name).toBe("east");
    await a.cooldown(east(), unavailable(503));
    for (let i = 0; i < 3; i++) expect((await a.route(resolve("gpt"))).provider.name).toBe("west");
    expect(lines.filter((l) => l.msg.includes("kept in this process only"))).toHaveLength(1);
    expect(lines.find((l) => l.msg === "deployment cooled down")).toMatchObject({ deployment: "east/gpt", cooldownMs: 10_000, status: 503 });
    store.failing = false;
    // The other instance never heard of it (the store was down when it happened).
    expect((await b.route(resolve("gpt"))).provider.name).toBe("east");
    await a.route(resolve("gpt"));
    expect(lines.filter((l) => l.msg.includes("shared through the state store again"))).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------
// The resilient model with deployments
// ---------------------------------------------------------------------------------------------

describe("resilientModel over deployments", () => {
  const config = configWith({
    gpt: { deployments: [{ model: "east/gpt", weight: 3 }, { model: "west/gpt", weight: 1 }], fallbacks: ["backup/claude"] },
  });
  const policy = { attempts: 2, initialDelayMs: 0, maxDelayMs: 0, budgetMs: 1_000 };

  async function run(fakes: Record<string, Fake>, stream = false) {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const model = await router.route(routed(config, fakes)("gpt"));
    const chat = resilientModel({ candidates: model.candidates, tools: new MemoryTools({}), schemaTarget: "openai", policy, logger: silentLogger(), deployments: router });
    const request: ChatRequest = { model: "gpt", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
    if (!stream) return { router, answer: await chat.complete(request) };
    let done: ChatResult | undefined;
    for await (const event of chat.stream(request)) if (event.type === "done") done = event.result;
    return { router, answer: done! };
  }

  it.each([false, true])("a deployment failing past its retries is cooled down, and the other deployment answers before any fallback (stream: %s)", async (stream) => {
    const fakes = { east: new Fake("east", () => unavailable(503)), west: new Fake("west"), backup: new Fake("backup") };
    const { router, answer } = await run(fakes, stream);
    expect(answer.provider).toBe("west");
    expect([fakes.east.calls, fakes.west.calls, fakes.backup.calls]).toEqual([2, 1, 0]);
    expect([...(await router.cooledDown(["east/gpt", "west/gpt"])).keys()]).toEqual(["east/gpt"]);
    expect(router.busy("east/gpt") + router.busy("west/gpt")).toBe(0);
  });

  it("every deployment failing: the fallbacks answer; both deployments are cooled down", async () => {
    const fakes = { east: new Fake("east", () => unavailable(500)), west: new Fake("west", () => unavailable(429)), backup: new Fake("backup") };
    const { router, answer } = await run(fakes);
    expect(answer.provider).toBe("backup");
    expect((await router.cooledDown(["east/gpt", "west/gpt"])).size).toBe(2);
  });

  it("a failure the retries overcome, or one that is not retryable, cools nothing down", async () => {
    const flaky = { east: new Fake("east", (call) => (call === 1 ? unavailable(503) : undefined)), west: new Fake("west"), backup: new Fake("backup") };
    const first = await run(flaky);
    expect(first.answer.provider).toBe("east");
    expect((await first.router.cooledDown(["east/gpt"])).size).toBe(0);
    const refused = { east: new Fake("east", () => unavailable(400)), west: new Fake("west"), backup: new Fake("backup") };
    await expect(run(refused)).rejects.toMatchObject({ status: 400 });
    expect(refused.west.calls).toBe(0);
  });

  it("counts calls in flight while they run", async () => {
    let seen = -1;
    let router!: DeploymentRouter;
    const fakes = { east: new Fake("east", () => undefined, async () => void (seen = router.busy("east/gpt"))), west: new Fake("west"), backup: new Fake("backup") };
    router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const model = await router.route(routed(config, fakes)("gpt"));
    const chat = resilientModel({ candidates: model.candidates, tools: new MemoryTools({}), schemaTarget: "openai", policy, logger: silentLogger(), deployments: router });
    await chat.complete({ model: "gpt", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
    expect(seen).toBe(1);
    expect(router.busy("east/gpt")).toBe(0);
    // A stream the consumer leaves early ends its call too.
    const it = chat.stream({ model: "gpt", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] })[Symbol.asyncIterator]();
    await it.next();
    expect(router.busy("east/gpt")).toBe(1);
    await it.return?.(undefined);
    expect(router.busy("east/gpt")).toBe(0);
  });
});
