/**
 * The concurrency cap counts a request until its answer is over on the ServerResponse — also a
 * request whose client left while an earlier middleware was still awaiting (its 'close' already
 * emitted when the cap saw it): that one must not hold a slot for good. A real server on
 * 127.0.0.1; every step waits on the event it needs.
 */
import { request } from "node:http";
import type { ServerResponse } from "node:http";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { concurrencyCap } from "../../src/gateway/http/limits.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";

let server: Listening | undefined;

afterEach(async () => {
  await server?.close(100);
  server = undefined;
});

/** Status of a plain GET, or the socket error's code. */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("concurrencyCap", () => {
  it("frees the slot of a request whose client left before the cap saw it", async () => {
    let arrived!: () => void;
    const slowArrived = new Promise<void>((resolve) => (arrived = resolve));
    let answered!: () => void;
    const slowAnswered = new Promise<void>((resolve) => (answered = resolve));
    const app = new Hono();
    // An earlier middleware that is still awaiting when the client goes (a key-limits store's
    // round trip, say): it goes on once the server has seen the connection close.
    app.use("/slow", async (c, next) => {
      const outgoing = (c.env as { outgoing: ServerResponse }).outgoing;
      arrived();
      if (!outgoing.destroyed) await new Promise((resolve) => outgoing.once("close", resolve));
      await next();
      answered();
    });
    app.use("*", concurrencyCap(1));
    app.get("*", (c) => c.text("ok"));
    server = await listen(app, "127.0.0.1", 0);

    const slow = request(`${server.url}/slow`);
    slow.on("error", () => undefined);
    slow.end();
    await slowArrived;
    slow.destroy();
    await slowAnswered;

    // The one slot is free again: the next request is served, not refused with 429.
    expect(await get(`${server.url}/fast`)).toBe(200);
  });

  it("refuses a request beyond the cap while one is in flight, and serves the next once it is over", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const holding = new Promise<void>((resolve) => (started = resolve));
    const app = new Hono();
    app.use("*", concurrencyCap(1));
    app.get("/hold", async (c) => {
      started();
      await held;
      return c.text("held");
    });
    app.get("*", (c) => c.text("ok"));
    server = await listen(app, "127.0.0.1", 0);

    const first = get(`${server.url}/hold`);
    await holding;
    expect(await get(`${server.url}/fast`)).toBe(429);
    release();
    expect(await first).toBe(200);
    expect(await get(`${server.url}/fast`)).toBe(200);
  });
});
