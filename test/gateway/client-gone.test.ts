/**
 * Seeing a request's end on Node's ServerResponse (src/gateway/http/client-gone.ts): the client
 * leaving while the request is handled, and the answer's end — also when the client left before
 * the listener was added (a ServerResponse emits 'close' once: a later listener never runs). Real
 * sockets on 127.0.0.1; each step waits on the event it needs, not on time.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { answerWatch, whenClientGone } from "../../src/gateway/http/client-gone.ts";

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** The context a handler gets on our Node server: only `env.outgoing` is read. */
const contextOf = (outgoing: ServerResponse) => ({ env: { outgoing } }) as unknown as Context;

/** A server whose first request is handed over; the client's request is open until `hangUp`. */
async function oneRequest(): Promise<{ res: ServerResponse; hangUp: () => void }> {
  let handed!: (res: ServerResponse) => void;
  const arrived = new Promise<ServerResponse>((resolve) => (handed = resolve));
  server = createServer((_req: IncomingMessage, res: ServerResponse) => handed(res));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const client = request({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, method: "POST" });
  client.on("error", () => undefined);
  client.write("{}");
  return { res: await arrived, hangUp: () => client.destroy() };
}

/** Waits until the server has seen the client go (its 'close' emitted). */
const closed = (res: ServerResponse) => new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once("close", () => resolve())));

describe("answerWatch", () => {
  it("calls done when the answer's connection closes", async () => {
    const { res, hangUp } = await oneRequest();
    let done = 0;
    answerWatch(contextOf(res))!(() => done++);
    expect(done).toBe(0);
    hangUp();
    await closed(res);
    expect(done).toBe(1);
  });

  it("calls done at once when the client left before the watch was set", async () => {
    const { res, hangUp } = await oneRequest();
    hangUp();
    await closed(res);
    let done = 0;
    answerWatch(contextOf(res))!(() => done++);
    expect(done).toBe(1);
  });

  it("is undefined without a Node server (the app called in-process)", () => {
    expect(answerWatch({ env: undefined } as unknown as Context)).toBeUndefined();
  });
});

describe("whenClientGone", () => {
  it("tells of a client that leaves while the request is handled", async () => {
    const { res, hangUp } = await oneRequest();
    let gone = 0;
    whenClientGone(contextOf(res), () => gone++);
    hangUp();
    await closed(res);
    expect(gone).toBe(1);
  });

  it("tells of a client that left before the handler started watching", async () => {
    const { res, hangUp } = await oneRequest();
    hangUp();
    await closed(res);
    let gone = 0;
    const stop = whenClientGone(contextOf(res), () => gone++);
    expect(gone).toBe(1);
    stop();
  });

  it("says nothing of a connection closed after its answer was written", async () => {
    const { res, hangUp } = await oneRequest();
    let gone = 0;
    whenClientGone(contextOf(res), () => gone++);
    await new Promise<void>((resolve) => res.end("ok", () => resolve()));
    hangUp();
    await closed(res);
    expect(gone).toBe(0);
  });
});
