import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { directSseResponse, directStreamsOpen } from "../../src/gateway/http/direct-sse.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";
import type { SseFrames } from "../../src/gateway/shared/sse-frames.ts";
import { streamResponse } from "../../src/gateway/shared/sse-pump.ts";
import { deferred } from "../helpers/scripted-model.ts";
import { scriptedFrames } from "../helpers/scripted-frames.ts";

const BURSTS = ["data: one\n\n", "data: two\n\n", "data: [DONE]\n\n"];

function app(make: () => SseFrames): Hono {
  const a = new Hono();
  a.post("/stream", (c) => {
    const frames = make();
    return directSseResponse(c, frames, { "x-request-id": "r" }) ?? streamResponse(frames, { "x-request-id": "r" });
  });
  a.get("/plain", (c) => c.text("plain"));
  return a;
}

let servers: Listening[] = [];
afterEach(async () => {
  for (const s of servers) await s.close(200);
  servers = [];
});

function get(agent: Agent, port: number, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; reused: boolean; headers: Record<string, unknown> }>((resolve, reject) => {
    const req = httpRequest({ agent, port, host: "127.0.0.1", method, path, headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode!, body, reused: req.reusedSocket, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("a streamed answer and its connection", () => {
  it("keep-alive: a second and third request on the same socket after a direct stream", async () => {
    const l = await listen(app(() => scriptedFrames(BURSTS).frames), "127.0.0.1", 0);
    servers.push(l);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const a = await get(agent, l.port, "POST", "/stream");
    const b = await get(agent, l.port, "POST", "/stream");
    const c = await get(agent, l.port, "GET", "/plain");
    expect(a.body).toBe(BURSTS.join(""));
    expect(b.body).toBe(BURSTS.join(""));
    expect(b.reused).toBe(true);
    expect(c.body).toBe("plain");
    expect(c.reused).toBe(true);
    agent.destroy();
    expect(directStreamsOpen()).toBe(0);
  });

  it("a graceful close lets a direct stream in flight finish before it resolves", async () => {
    const hold = deferred();
    let frames: SseFrames | undefined;
    const l = await listen(app(() => (frames = scriptedFrames(BURSTS, hold.promise).frames)), "127.0.0.1", 0);
    const response = await fetch(`${l.url}/stream`, { method: "POST" });
    const reader = response.body!.getReader();
    await reader.read();
    // Draining starts here, with the stream held mid-way: its rest must still arrive, and the
    // close resolve only once the stream has given its last frame.
    const closing = l.close(5000).then(() => frames!.ended);
    hold.resolve();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toBe(BURSTS.slice(1).join(""));
    expect(await closing).toBe(true);
    expect(directStreamsOpen()).toBe(0);
  });

  it.each(["direct", "plain"])("a client's Connection: close is honoured (%s sink)", async (kind) => {
    let port: number;
    let server: Server | undefined;
    if (kind === "direct") {
      const l = await listen(app(() => scriptedFrames(BURSTS).frames), "127.0.0.1", 0);
      servers.push(l);
      port = l.port;
    } else {
      server = createServer(getRequestListener(app(() => scriptedFrames(BURSTS).frames).fetch));
      await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
      port = (server.address() as AddressInfo).port;
    }
    try {
      const socket = connect(port, "127.0.0.1");
      let raw = "";
      socket.setEncoding("latin1");
      socket.on("data", (d: string) => (raw += d));
      // The server must close the connection after the answer (a kept one would hang here).
      const closed = new Promise<void>((r) => socket.on("close", () => r()));
      socket.write("POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      await closed;
      const head = raw.split("\r\n\r\n")[0]!;
      expect(head).toMatch(/^HTTP\/1\.1 200/);
      // An explicit `connection: keep-alive` in the SSE headers used to make Node keep it.
      expect(head).toMatch(/\r\nconnection: close/i);
      expect(raw).toContain("data: [DONE]");
    } finally {
      server?.close();
    }
  });

  it("a keep-alive frame is written while the socket can take it, and skipped while it is full", async () => {
    const hold = deferred();
    let writeKeepAlive: ((frame: string) => void) | undefined;
    // 32 MB: far more than the loopback socket holds while the client does not read.
    const bursts = ["data: small\n\n", `data: ${"x".repeat(32 * 1024 * 1024)}\n\n`, "data: [DONE]\n\n"];
    let given = 0;
    const frames: SseFrames = {
      async next() {
        // The big burst waits until the test has sent its first keep-alive (socket not full).
        if (given === 1) await hold.promise;
        return bursts[given++] ?? "";
      },
      head: () => undefined,
      get ended() {
        return given >= bursts.length;
      },
      keepAlive(write) {
        writeKeepAlive = write;
      },
      settle() {},
      cancel() {},
      finished: new Promise(() => undefined),
    };
    const l = await listen(app(() => frames), "127.0.0.1", 0);
    servers.push(l);
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ port: l.port, host: "127.0.0.1", method: "POST", path: "/stream" }, (res) => {
        res.setEncoding("latin1");
        let text = "";
        res.once("data", (first: string) => {
          text += first;
          // The first burst is in: nothing is pending, so this frame goes out.
          writeKeepAlive!(": alive-1\n\n");
          res.pause();
          hold.resolve();
          // The big burst fills the socket (the client reads nothing): this one is skipped.
          setImmediate(() => {
            writeKeepAlive!(": alive-2\n\n");
            res.on("data", (chunk: string) => (text += chunk));
            res.resume();
          });
          res.on("end", () => resolve(text));
        });
      });
      req.on("error", reject);
      req.end();
    });
    expect(body.startsWith("data: small\n\n")).toBe(true);
    expect(body).toContain(": alive-1\n\n");
    expect(body).not.toContain(": alive-2");
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
  });
});
