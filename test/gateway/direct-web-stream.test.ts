/**
 * Event streams that handlers answer as web ReadableStreams (the MCP SDK's transport on `/mcp`,
 * the web view's events), written by our Node server (src/gateway/http/direct-web-stream.ts)
 * instead of by @hono/node-server, with streams the test drives: the head leaves before any event
 * when there is none yet, then each event as it comes, and the end; middlewares' headers after
 * the handler are kept; a client that goes cancels the stream; a stream that fails cuts the
 * connection. Only routes that ask (`directEventStreams`) are written so; other answers are
 * still @hono/node-server's (a JSON answer keeps its length).
 */
import { createHook } from "node:async_hooks";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { directEventStreams } from "../../src/gateway/http/direct-sse.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";
import { deferred } from "../helpers/scripted-model.ts";

/** A stream the test feeds; `cancelled` settles with the reason when the reader cancels it. */
function drivenStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled = deferred<unknown>();
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: (reason) => cancelled.resolve(reason ?? "no reason"),
  });
  const encoder = new TextEncoder();
  return { body, cancelled: cancelled.promise, send: (text: string) => controller.enqueue(encoder.encode(text)), end: () => controller.close(), fail: (error: Error) => controller.error(error) };
}

let servers: Listening[] = [];
async function serveStream(body: ReadableStream<Uint8Array>): Promise<string> {
  const app = new Hono();
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("x-after", "1");
  });
  app.get("/events", (c) => {
    directEventStreams(c);
    const response = new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
    // As `/mcp` does (whenBodyDone looks at its answer's body): reading `body` turns
    // @hono/node-server's own Response into a plain one, which it writes after probing it.
    if (!response.body) throw new Error("no body");
    return response;
  });
  app.get("/json", (c) => {
    directEventStreams(c);
    return c.json({ ok: true });
  });
  // A route that does not ask: its event stream is @hono/node-server's to write, as before.
  app.get("/unasked", () => new Response(body, { headers: { "content-type": "text/event-stream" } }));
  const listening = await listen(app, "127.0.0.1", 0);
  servers.push(listening);
  return listening.url;
}
afterEach(async () => {
  for (const server of servers) await server.close(200);
  servers = [];
});

/** A GET whose response is handed over at its head; `chunks` gathers the body as it comes. */
function get(url: string): Promise<{ response: IncomingMessage; next(): Promise<string>; ended: Promise<"end" | "cut"> }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, (response) => {
      const queue: string[] = [];
      let waiting: ((text: string) => void) | undefined;
      response.setEncoding("utf8");
      response.on("data", (text: string) => {
        if (waiting) {
          const deliver = waiting;
          waiting = undefined;
          deliver(text);
        } else queue.push(text);
      });
      const ended = new Promise<"end" | "cut">((settle) => {
        response.once("end", () => settle("end"));
        response.once("aborted", () => settle("cut"));
        response.once("error", () => settle("cut"));
      });
      resolve({ response, ended, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((r) => (waiting = r))) });
    });
    request.on("error", reject);
    request.end();
  });
}

describe("an event stream answered as a web ReadableStream, on the real Node server", () => {
  it("sends its head before any event, then each event as it comes, then the end; the middlewares' headers are kept", async () => {
    const stream = drivenStream();
    const url = await serveStream(stream.body);
    // Nothing is in the stream yet: the head arrives anyway (a client waits for it).
    const { response, next, ended } = await get(`${url}/events`);
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("text/event-stream");
    expect(response.headers["x-after"]).toBe("1");
    expect(response.headers["content-length"]).toBeUndefined();
    expect(response.headers["x-hono-already-sent"]).toBeUndefined();
    stream.send("data: one\n\n");
    expect(await next()).toBe("data: one\n\n");
    stream.send("data: two\n\n");
    stream.end();
    expect(await next()).toBe("data: two\n\n");
    expect(await ended).toBe("end");
  });

  it("a stream with its first event ready sends it with the head, and ends", async () => {
    const stream = drivenStream();
    stream.send("id: 1\ndata: \n\n");
    stream.send("data: answer\n\n");
    stream.end();
    const url = await serveStream(stream.body);
    const { next, ended } = await get(`${url}/events`);
    let body = "";
    while (!body.includes("answer")) body += await next();
    expect(body).toBe("id: 1\ndata: \n\ndata: answer\n\n");
    expect(await ended).toBe("end");
  });

  it("waits on no timer when its first event is ready and the next is not (@hono/node-server waited one, 1 ms or more, for every /mcp answer)", async () => {
    const stream = drivenStream();
    stream.send("id: 1\ndata: \n\n");
    const url = await serveStream(stream.body);
    // Timers made by @hono/node-server while the answer is written (its probe of the first two chunks).
    const probes: string[] = [];
    const hook = createHook({
      init(_id, type) {
        if (type !== "Timeout") return;
        const stack = new Error().stack ?? "";
        if (stack.includes("@hono/node-server")) probes.push(stack);
      },
    }).enable();
    try {
      const { next, ended } = await get(`${url}/events`);
      expect(await next()).toBe("id: 1\ndata: \n\n");
      stream.send("data: answer\n\n");
      stream.end();
      expect(await next()).toBe("data: answer\n\n");
      expect(await ended).toBe("end");
    } finally {
      hook.disable();
    }
    expect(probes).toEqual([]);
  });

  it("a client that goes away cancels the stream", async () => {
    const stream = drivenStream();
    const url = await serveStream(stream.body);
    const { response, next } = await get(`${url}/events`);
    stream.send("data: one\n\n");
    expect(await next()).toBe("data: one\n\n");
    response.destroy();
    await expect(stream.cancelled).resolves.toBeDefined();
  });

  it("a stream that fails cuts the connection: the client sees the answer end short", async () => {
    const stream = drivenStream();
    const url = await serveStream(stream.body);
    const { next, ended } = await get(`${url}/events`);
    stream.send("data: one\n\n");
    expect(await next()).toBe("data: one\n\n");
    stream.fail(new Error("the source failed"));
    expect(await ended).toBe("cut");
  });

  it("a route that does not ask has its event stream written by @hono/node-server, as before", async () => {
    const stream = drivenStream();
    const url = await serveStream(stream.body);
    const { response, next, ended } = await get(`${url}/unasked`);
    expect(response.headers["content-type"]).toBe("text/event-stream");
    stream.send("data: one\n\n");
    stream.end();
    expect(await next()).toBe("data: one\n\n");
    expect(await ended).toBe("end");
  });

  it("other answers of a route that asks are left to @hono/node-server: a JSON answer keeps its content-length", async () => {
    const url = await serveStream(drivenStream().body);
    const { response, next, ended } = await get(`${url}/json`);
    expect(response.headers["content-length"]).toBe(String('{"ok":true}'.length));
    expect(response.headers["x-after"]).toBe("1");
    expect(await next()).toBe('{"ok":true}');
    expect(await ended).toBe("end");
  });
});
