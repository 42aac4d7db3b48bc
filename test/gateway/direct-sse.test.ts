/**
 * The direct SSE sink (src/gateway/http/direct-sse.ts) around a small Hono app on the real Node
 * server (`listen`), with frames the test makes: a Response that middlewares copy still streams;
 * one that an error replaces, or an app.fetch that fails, or a client gone before the head, is
 * never written and its stream is cancelled, as is one whose client goes mid-stream; the
 * private marker never leaves; without the
 * wrapper (`app.request()`, a plain @hono/node-server listener) the web stream is sent. Then
 * the real gateway's app without a Node server: each door's stream as a web ReadableStream.
 */
import { createServer, request as httpRequest, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono, type MiddlewareHandler } from "hono";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { directSseResponse, directStreamsOpen } from "../../src/gateway/http/direct-sse.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";
import { createGateway, type Gateway } from "../../src/gateway/runtime.ts";
import type { SseFrames } from "../../src/gateway/shared/sse-frames.ts";
import { streamResponse } from "../../src/gateway/shared/sse-pump.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { deferred } from "../helpers/scripted-model.ts";
import { scriptedFrames } from "../helpers/scripted-frames.ts";
import { DOORS, type Door } from "../helpers/sse-doors.ts";

const MARKER = "x-mcp-gateway-direct-stream";

const BURSTS = ["data: one\n\n", "data: two\n\ndata: three\n\n", "data: [DONE]\n\n"];

/** An app whose /stream route streams `frames` (directly when it can), under `after`. */
function appWith(frames: SseFrames, after: MiddlewareHandler, handled?: () => void): Hono {
  const app = new Hono();
  app.use(after);
  app.post("/stream", (c) => {
    handled?.();
    return directSseResponse(c, frames, { "x-request-id": "req-1" }) ?? streamResponse(frames, { "x-request-id": "req-1" });
  });
  app.onError((error, c) => c.json({ error: error.message }, 500));
  return app;
}

let servers: Listening[] = [];
async function serveApp(app: Hono): Promise<string> {
  const listening = await listen(app, "127.0.0.1", 0);
  servers.push(listening);
  return listening.url;
}
afterEach(async () => {
  for (const server of servers) await server.close(200);
  servers = [];
  expect(directStreamsOpen()).toBe(0);
});

describe("the direct sink on the real Node server", () => {
  it("a Response the middlewares copy after the handler (Hono's c.header, as hono/cors does) is still the stream: their headers, every burst, no marker", async () => {
    const { frames, record } = scriptedFrames(BURSTS);
    const url = await serveApp(
      appWith(frames, async (c, next) => {
        await next();
        c.res.headers.set("x-set-after", "1");
        // Once the response is final, c.header makes a new Response from the old one.
        const before = c.res;
        c.header("x-copied-after", "2");
        expect(c.res).not.toBe(before);
      }),
    );
    const response = await fetch(`${url}/stream`, { method: "POST" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("x-request-id")).toBe("req-1");
    expect(response.headers.get("x-set-after")).toBe("1");
    expect(response.headers.get("x-copied-after")).toBe("2");
    expect(response.headers.has(MARKER)).toBe(false);
    expect(response.headers.has("x-hono-already-sent")).toBe(false);
    expect(await response.text()).toBe(BURSTS.join(""));
    expect(record.cancels).toBe(0);
    // Told once the last burst was written, as the stream's end.
    expect(record.settled).toBe(1);
    expect(record.keptAlive).toBe(1);
  });

  it("an error after the handler replaces its Response: the error is sent, without the marker Hono copied onto it, and the stream is cancelled", async () => {
    const { frames, record } = scriptedFrames(BURSTS);
    const url = await serveApp(
      appWith(frames, async (_c, next) => {
        await next();
        throw new Error("a middleware failed after the handler");
      }),
    );
    const response = await fetch(`${url}/stream`, { method: "POST" });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(response.headers.has(MARKER)).toBe(false);
    expect(await response.json()).toEqual({ error: "a middleware failed after the handler" });
    expect(record.cancels).toBe(1);
    expect(record.keptAlive).toBe(0);
  });

  it("app.fetch failing after the handler (a non-Error thrown, which Hono's onError does not take): @hono/node-server's 500, the stream cancelled", async () => {
    const { frames, record } = scriptedFrames(BURSTS);
    const url = await serveApp(
      appWith(frames, async (_c, next) => {
        await next();
        throw "not an Error";
      }),
    );
    const response = await fetch(`${url}/stream`, { method: "POST" });
    expect(response.status).toBe(500);
    expect(response.headers.has(MARKER)).toBe(false);
    expect(await response.text()).toBe("");
    expect(record.cancels).toBe(1);
  });

  it("a client gone before the middlewares are done: nothing is written, the stream is cancelled", async () => {
    const { frames, record } = scriptedFrames(BURSTS);
    const handled = deferred();
    const url = await serveApp(
      appWith(
        frames,
        async (c, next) => {
          const outgoing = (c.env as { outgoing: { once(event: "close", listener: () => void): void } }).outgoing;
          const closed = new Promise<void>((resolve) => outgoing.once("close", resolve));
          await next();
          await closed;
        },
        () => handled.resolve(),
      ),
    );
    const client = new AbortController();
    const answered = fetch(`${url}/stream`, { method: "POST", signal: client.signal }).then(
      () => "answered",
      () => "aborted",
    );
    await handled.promise;
    client.abort();
    expect(await answered).toBe("aborted");
    await record.cancelled;
    expect(record.cancels).toBe(1);
    expect(record.keptAlive).toBe(0);
  });

  it("a client gone mid-stream (the frames waiting on the loop): they are cancelled, once, as a web stream's cancel does", async () => {
    const hold = deferred();
    const { frames, record } = scriptedFrames(BURSTS, hold.promise);
    const url = await serveApp(appWith(frames, (_c, next) => next()));
    const client = new AbortController();
    const response = await fetch(`${url}/stream`, { method: "POST", signal: client.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(BURSTS[0]);
    client.abort();
    await record.cancelled;
    expect(record.cancels).toBe(1);
    expect(directStreamsOpen()).toBe(0);
    hold.resolve();
  });

  it("a head that is ready is written with the response's head, before the sink pulls anything", async () => {
    const pulls = deferred();
    const { frames, record } = scriptedFrames(BURSTS, undefined, pulls.promise);
    const url = await serveApp(appWith(frames, (_c, next) => next()));
    const response = await fetch(`${url}/stream`, { method: "POST" });
    const reader = response.body!.getReader();
    // No pull has been answered yet: the first bytes are the head's.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe(BURSTS[0]);
    pulls.resolve();
    let rest = "";
    for (let read = await reader.read(); !read.done; read = await reader.read()) rest += new TextDecoder().decode(read.value);
    expect(rest).toBe(BURSTS.slice(1).join(""));
    expect(record.settled).toBe(1);
  });

  it("a head that fills the socket: the sink pulls the next burst only after the socket drained", async () => {
    // 32 MB: far more than a loopback socket takes before the client reads.
    const bursts = [`data: ${"x".repeat(32 * 1024 * 1024)}\n\n`, "data: [DONE]\n\n"];
    const { frames } = scriptedFrames(bursts);
    let drained = false;
    let drainedAtPull: boolean | undefined;
    const pull = frames.next.bind(frames);
    frames.next = () => {
      drainedAtPull ??= drained;
      return pull();
    };
    const app = new Hono();
    app.post("/stream", (c) => {
      (c.env as { outgoing: ServerResponse }).outgoing.once("drain", () => (drained = true));
      return directSseResponse(c, frames, { "x-request-id": "req-1" }) ?? streamResponse(frames, { "x-request-id": "req-1" });
    });
    const url = await serveApp(app);
    const text = await (await fetch(`${url}/stream`, { method: "POST" })).text();
    expect(text).toBe(bursts.join(""));
    expect(drainedAtPull).toBe(true);
  });
});

describe("without the wrapper the handler sends a web stream", () => {
  it("app.request() (no Node server): a ReadableStream body, every burst, no marker", async () => {
    const { frames, record } = scriptedFrames(BURSTS);
    const response = await appWith(frames, (_c, next) => next()).request("/stream", { method: "POST" });
    expect(response.body).toBeInstanceOf(ReadableStream);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.has(MARKER)).toBe(false);
    expect(directStreamsOpen()).toBe(0);
    expect(await response.text()).toBe(BURSTS.join(""));
    expect(record.cancels).toBe(0);
    expect(record.settled).toBe(1);
  });

  it("a plain @hono/node-server listener (no slot offered): the web stream, over Node", async () => {
    const { frames } = scriptedFrames(BURSTS);
    const server: Server = createServer(getRequestListener(appWith(frames, (_c, next) => next()).fetch));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const text = await new Promise<{ headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const req = httpRequest({ port, host: "127.0.0.1", method: "POST", path: "/stream" }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ headers: res.headers, body }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(text.headers[MARKER]).toBeUndefined();
      expect(text.body).toBe(BURSTS.join(""));
      expect(directStreamsOpen()).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("the gateway's app without a Node server (app.request): each door streams a web ReadableStream", () => {
  let upstream: ScriptedUpstream;
  let gateway: Gateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai");
    const config = resolveConfig({ mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } }, gateway: { retries: { attempts: 1 } } }, {});
    gateway = await createGateway(config, { logger: silentLogger() });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it.each(DOORS)("%s", async (_name, door: Door) => {
    upstream.script([{ text: "Streamed without a server." }]);
    const response = await gateway.app.request(door.path, { method: "POST", headers: { "content-type": "application/json", host: "127.0.0.1", "x-request-id": "web-1" }, body: JSON.stringify(door.body("fake/m")) });
    expect(response.status).toBe(200);
    expect(response.body).toBeInstanceOf(ReadableStream);
    expect(response.headers.get("x-request-id")).toBe("web-1");
    expect(response.headers.has(MARKER)).toBe(false);
    expect(directStreamsOpen()).toBe(0);
    expect(door.text(await response.text())).toBe("Streamed without a server.");
  });
});
