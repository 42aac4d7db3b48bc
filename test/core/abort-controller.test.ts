import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { EventEmitter, getEventListeners, once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { Agent, request } from "undici";
import { lightAbortController, nativeSignal, requestAbortController } from "../../src/core/abort-controller.ts";

type Make = () => AbortController;

/**
 * What a scenario saw, run once on Node's AbortController and once on the light one: the light
 * one must see the same (it stands in for Node's on the request path).
 */
function differential(name: string, scenario: (make: Make) => unknown[]): void {
  it(name, () => {
    const native = scenario(() => new AbortController());
    const light = scenario(lightAbortController);
    expect(light).toEqual(native);
    expect(native.length).toBeGreaterThan(0);
  });
}

describe("lightAbortController: the same as Node's AbortController", () => {
  differential("aborted without a reason: an AbortError DOMException", (make) => {
    const controller = make();
    const before = [controller.signal.aborted, controller.signal.reason];
    controller.abort();
    const reason = controller.signal.reason as DOMException;
    return [...before, controller.signal.aborted, reason instanceof DOMException, reason.name, reason.message];
  });

  differential("aborted with a reason: that reason, thrown by throwIfAborted; a second abort changes nothing", (make) => {
    const controller = make();
    const seen: unknown[] = [];
    controller.signal.throwIfAborted();
    const reason = new Error("gone");
    controller.abort(reason);
    controller.abort(new Error("again"));
    try {
      controller.signal.throwIfAborted();
    } catch (error) {
      seen.push(error === reason);
    }
    seen.push(controller.signal.reason === reason);
    return seen;
  });

  differential("listeners run once, in order, with the signal as this and an abort event", (make) => {
    const controller = make();
    const seen: unknown[] = [];
    const first = function (this: unknown, event: Event) {
      seen.push(["first", this === controller.signal, event.type, controller.signal.aborted]);
    };
    controller.signal.addEventListener("abort", first);
    controller.signal.addEventListener("abort", first); // the same listener: one registration
    controller.signal.addEventListener("abort", { handleEvent: (event: Event) => seen.push(["object", event.type]) });
    controller.signal.addEventListener("abort", () => seen.push("once"), { once: true });
    controller.signal.onabort = (event) => seen.push(["onabort", event.type]);
    controller.abort();
    controller.abort();
    return seen;
  });

  differential("a removed listener does not run, also one removed while the event is dispatched", (make) => {
    const controller = make();
    const seen: string[] = [];
    const removed = () => seen.push("removed");
    const later = () => seen.push("later");
    controller.signal.addEventListener("abort", removed);
    controller.signal.removeEventListener("abort", removed);
    controller.signal.addEventListener("abort", () => {
      seen.push("first");
      controller.signal.removeEventListener("abort", later);
      controller.signal.addEventListener("abort", () => seen.push("added while dispatching"));
    });
    controller.signal.addEventListener("abort", later);
    controller.abort();
    controller.signal.addEventListener("abort", () => seen.push("added after"));
    return seen;
  });

  differential("a listener with a signal option is removed when that signal aborts", (make) => {
    const controller = make();
    const remover = new AbortController();
    const removedAtOnce = new AbortController();
    removedAtOnce.abort();
    const seen: string[] = [];
    controller.signal.addEventListener("abort", () => seen.push("kept"), { signal: new AbortController().signal });
    controller.signal.addEventListener("abort", () => seen.push("removed"), { signal: remover.signal });
    controller.signal.addEventListener("abort", () => seen.push("never added"), { signal: removedAtOnce.signal });
    remover.abort();
    controller.abort();
    return seen;
  });

  differential("other event types are not abort's", (make) => {
    const controller = make();
    const seen: string[] = [];
    controller.signal.addEventListener("other", () => seen.push("other"));
    controller.signal.addEventListener("abort", () => seen.push("abort"));
    controller.abort();
    return [...seen, controller.signal.aborted];
  });
});

describe("lightAbortController: what the differential cannot show", () => {
  it("dispatches an abort event whose target is the signal", () => {
    const controller = lightAbortController();
    const seen: unknown[] = [];
    controller.signal.addEventListener("abort", (event) => seen.push(event.target === controller.signal, event.currentTarget === controller.signal, event.type));
    controller.abort();
    expect(seen).toEqual([true, true, "abort"]);
  });

  it("lets go of a listener's `signal` option once the listener is removed or has run", () => {
    const controller = lightAbortController();
    const until = new AbortController();
    const listener = () => {};
    controller.signal.addEventListener("abort", listener, { signal: until.signal });
    expect(getEventListeners(until.signal, "abort")).toHaveLength(1);
    controller.signal.removeEventListener("abort", listener);
    expect(getEventListeners(until.signal, "abort")).toHaveLength(0);
    controller.signal.addEventListener("abort", listener, { signal: until.signal });
    controller.abort();
    expect(getEventListeners(until.signal, "abort")).toHaveLength(0);
  });
});

describe("lightAbortController with Node's own code", () => {
  let server: Server | undefined;
  const dispatcher = new Agent();
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });
  afterAll(() => dispatcher.close());

  /** A server that reads each request and never answers: what is aborted is the client's wait. */
  async function silentServer(): Promise<{ url: string; arrived: Promise<void> }> {
    let arrived!: () => void;
    const arrival = new Promise<void>((resolve) => (arrived = resolve));
    server = createServer((req) => {
      req.resume();
      arrived();
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, arrived: arrival };
  }

  it("passes instanceof AbortSignal", () => {
    expect(lightAbortController().signal).toBeInstanceOf(AbortSignal);
  });

  it("aborts Node's fetch in flight, with its reason", async () => {
    const { url, arrived } = await silentServer();
    const controller = lightAbortController();
    const reason = new Error("client left");
    const answer = fetch(url, { method: "POST", body: "x", signal: controller.signal });
    await arrived;
    controller.abort(reason);
    await expect(answer).rejects.toBe(reason);
  });

  it("aborts undici's request in flight", async () => {
    const { url, arrived } = await silentServer();
    const controller = lightAbortController();
    const answer = request(url, { method: "POST", body: "x", signal: controller.signal, dispatcher });
    await arrived;
    controller.abort(new Error("deadline"));
    await expect(answer).rejects.toThrow("deadline");
  });

  it("ends timers/promises' wait and events.once", async () => {
    const controller = lightAbortController();
    const waited = sleep(60_000, undefined, { signal: controller.signal });
    const emitted = once(new EventEmitter(), "never", { signal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(waited).rejects.toMatchObject({ name: "AbortError" });
    await expect(emitted).rejects.toMatchObject({ name: "AbortError" });
  });

  it("a listener that throws: the others still run, its error thrown on the next tick", () => {
    const controller = lightAbortController();
    const ticks: (() => void)[] = [];
    const nextTick = vi.spyOn(process, "nextTick").mockImplementation(((callback: () => void) => ticks.push(callback)) as typeof process.nextTick);
    const seen: string[] = [];
    try {
      controller.signal.addEventListener("abort", () => {
        throw new Error("listener failed");
      });
      controller.signal.addEventListener("abort", () => seen.push("second"));
      controller.abort();
    } finally {
      nextTick.mockRestore();
    }
    expect(seen).toEqual(["second"]);
    expect(ticks).toHaveLength(1);
    expect(() => ticks[0]!()).toThrow("listener failed");
  });
});

describe("nativeSignal", () => {
  it("gives Node's own signal, which AbortSignal.any links, aborted with the light one", () => {
    const controller = lightAbortController();
    const native = nativeSignal(controller.signal);
    expect(native).not.toBe(controller.signal);
    expect(nativeSignal(controller.signal)).toBe(native);
    const linked = AbortSignal.any([native, new AbortController().signal]);
    const reason = new Error("gone");
    controller.abort(reason);
    expect([native.aborted, native.reason, linked.aborted, linked.reason]).toEqual([true, reason, true, reason]);
  });

  it("is aborted at once when made after the light signal aborted", () => {
    const controller = lightAbortController();
    controller.abort(new Error("early"));
    expect(nativeSignal(controller.signal).reason).toEqual(new Error("early"));
  });

  it("knows a light signal made by another copy of the module (src and dist loaded both)", async () => {
    // A query makes the runner load the module a second time (a string: the type checker would look for that file).
    const another = "../../src/core/abort-controller.ts?another-copy";
    const copy = (await import(another)) as typeof import("../../src/core/abort-controller.ts");
    expect(copy.lightAbortController).not.toBe(lightAbortController);
    const controller = copy.lightAbortController();
    const native = nativeSignal(controller.signal);
    expect(native).not.toBe(controller.signal);
    controller.abort(new Error("gone"));
    expect(AbortSignal.any([native]).aborted).toBe(true);
  });

  it("leaves Node's own signals and undefined as they are", () => {
    const signal = new AbortController().signal;
    expect(nativeSignal(signal)).toBe(signal);
    expect(nativeSignal(undefined)).toBeUndefined();
  });
});

describe("requestAbortController", () => {
  it("is the light one before Node 22, Node's own after", () => {
    const controller = requestAbortController();
    const nodeMajor = Number(process.versions.node.split(".")[0]);
    expect(nativeSignal(controller.signal) === controller.signal).toBe(nodeMajor >= 22);
  });
});
