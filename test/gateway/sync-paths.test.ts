/**
 * The request path's steps that usually have nothing to wait for answer at once, without a
 * promise (each one is a promise and a microtask on every request otherwise), and still wait
 * when they do have something to read.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import type { Message } from "../../src/core/index.ts";
import { Compactor, type CompactionState } from "../../src/loop/index.ts";
import { DeploymentRouter } from "../../src/gateway/routing/deployments.ts";
import type { ResolvedModel } from "../../src/gateway/routing/resolve-model.ts";
import { KeyLimits } from "../../src/gateway/shared/key-limits.ts";
import { parseResponses } from "../../src/gateway/doors/responses/door.ts";
import { HiddenStepsKeeper } from "../../src/gateway/state/hidden-steps.ts";
import { ResponseStore, type StoredResponse } from "../../src/gateway/state/responses.ts";
import { MemoryBackend, MemoryStore } from "../../src/gateway/state/store.ts";

const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

describe("steps with nothing to wait for", () => {
  it("restoring the hidden steps of a history without the gateway's answers gives the history at once", async () => {
    const keeper = new HiddenStepsKeeper(new MemoryStore(), silentLogger());
    const history = [user("hi")];
    const restored = keeper.restore("t", history);
    expect(restored).not.toBeInstanceOf(Promise);
    expect(restored).toEqual(history);
    // An answer of the gateway's in the history: a store lookup, awaited.
    const answered: Message[] = [user("hi"), { role: "assistant", content: [{ type: "tool_call", id: "call_1", name: "lookup", arguments: {}, rawArguments: "{}" }] }];
    const looked = keeper.restore("t", answered);
    expect(looked).toBeInstanceOf(Promise);
    expect(await looked).toEqual(answered);
  });

  it("routing a model without deployments gives it back at once", () => {
    const router = new DeploymentRouter({ store: new MemoryBackend(), logger: silentLogger() });
    const model = { requested: "p/m", modelId: "m", candidates: [] } as unknown as ResolvedModel;
    expect(router.route(model)).toBe(model);
  });

  it("preparing a model call with nothing to read or cut gives the request itself at once", async () => {
    const request = { model: "m", messages: [user("hi")] };
    expect(new Compactor({ threshold: 0.8, strategy: "off", keepRecentTurns: 2 }).prepare(request)).toBe(request);
    expect(new Compactor({ threshold: 0.8, strategy: "trim", keepRecentTurns: 2, maxTokens: 100_000 }).prepare(request)).toBe(request);
    // A conversation longer than the turns always kept: the kept state is read first, awaited.
    const reads: string[] = [];
    const memory = { get: async (key: string) => (reads.push(key), undefined as CompactionState | undefined), set: async () => {} };
    const long = { model: "m", messages: [user("1"), user("2"), user("3")] };
    const prepared = new Compactor({ threshold: 0.8, strategy: "trim", keepRecentTurns: 1, memory }).prepare(long);
    expect(prepared).toBeInstanceOf(Promise);
    expect(await prepared).toBe(long);
    expect(reads).toHaveLength(1);
  });

  it("a key without a token limit records nothing, and makes no promise", () => {
    const limits = new KeyLimits(new MemoryBackend().counters, silentLogger());
    expect(limits.record(undefined, { inputTokens: 5, outputTokens: 5 })).toBeUndefined();
    expect(limits.record({ key: "k", name: "plain" } as never, { inputTokens: 5, outputTokens: 5 })).toBeUndefined();
  });

  it("a Responses request that continues no stored response is parsed at once; one that does reads the store first", async () => {
    const config = resolveConfig({ mcpServers: {} }, {});
    const store = new ResponseStore(new MemoryStore<StoredResponse>());
    const fresh = parseResponses({ model: "p/m", input: "hi" }, config, store, "t");
    expect(fresh).not.toBeInstanceOf(Promise);
    await store.set("t", "resp_1", { response: { id: "resp_1" }, input: [], messages: [user("before")], listed: [] });
    const continued = parseResponses({ model: "p/m", input: "hi", previous_response_id: "resp_1" }, config, store, "t");
    expect(continued).toBeInstanceOf(Promise);
    expect((await continued).history).toEqual([user("before")]);
    // An unknown id is still the door's 400, from the store read.
    await expect(parseResponses({ model: "p/m", input: "hi", previous_response_id: "resp_nope" }, config, store, "t")).rejects.toThrow("Previous response with id 'resp_nope' not found.");
  });
});
