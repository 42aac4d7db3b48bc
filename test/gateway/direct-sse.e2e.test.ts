/**
 * Streamed answers written straight to Node's response (src/gateway/http/direct-sse.ts), through
 * the real gateway on its real Node server, on each front door: the head the middlewares make
 * (the request id, Anthropic's request-id, CORS, a key's rate limits) is the one the web-stream
 * path (`app.request()`) sends, the private marker never leaves, every frame arrives; a client
 * that aborts mid-stream makes the gateway abort its upstream and leaves no stream behind; and
 * a reader too slow for the stream gets every byte, the gateway waiting for the socket's
 * 'drain' instead of writing into a full buffer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { directStreamsOpen } from "../../src/gateway/http/direct-sse.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";
import { createGateway, type Gateway } from "../../src/gateway/runtime.ts";
import type { FakeUpstream } from "../helpers/fake-upstream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { deferred } from "../helpers/scripted-model.ts";
import { DOORS } from "../helpers/sse-doors.ts";

const KEY = "direct-sse-key-0001";
const ORIGIN = "http://app.example";
const MARKER = "x-mcp-gateway-direct-stream";
/** Added by Node's HTTP server to every answer it writes (not by the app). */
const NODE_ADDED = new Set(["date", "keep-alive", "transfer-encoding", "connection"]);
/** Key-limit headers whose values move between two requests (the counters, the time left). */
const MOVING = /^x-ratelimit-(remaining|reset)-/;

let upstream: ScriptedUpstream;
let gateway: Gateway;
let server: Listening;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  const config = resolveConfig(
    {
      mcpServers: {},
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
      gateway: { apiKeys: [{ key: KEY, name: "limited", rpm: 1000, tpm: 10_000_000 }], cors: { allowedOrigins: [ORIGIN] }, retries: { attempts: 1 } },
    },
    {},
  );
  // No keep-alive frame during the tests: one written while the socket is full would be counted
  // as a write that ignored backpressure.
  gateway = await createGateway(config, { logger: silentLogger(), heartbeatMs: 600_000 });
  server = await listen(gateway.app, "127.0.0.1", 0);
});

afterAll(async () => {
  await server?.close(200);
  await gateway?.close();
  await upstream?.close();
});

const headersFor = (requestId: string) => ({ "content-type": "application/json", authorization: `Bearer ${KEY}`, origin: ORIGIN, "x-request-id": requestId });

/** The headers as name → value, without those Node's server adds. */
function appHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !NODE_ADDED.has(name)));
}

describe.each(DOORS)("a streamed answer on %s through the Node server", (path, door) => {
  it("has the head the middlewares make (the web stream's), no marker, and every frame", async () => {
    upstream.script([{ text: "Written straight to the socket." }]);
    const response = await fetch(`${server.url}${path}`, { method: "POST", headers: headersFor("direct-1"), body: JSON.stringify(door.body("fake/m")) });
    expect(response.status).toBe(200);
    const direct = appHeaders(response.headers);
    const body = await response.text();

    expect(direct["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(direct["cache-control"]).toBe("no-cache");
    expect(direct["x-request-id"]).toBe("direct-1");
    expect(direct["request-id"]).toBe(path === "/v1/messages" ? "direct-1" : undefined);
    expect(direct["access-control-allow-origin"]).toBe(ORIGIN);
    expect(direct["access-control-expose-headers"]).toContain("x-request-id");
    expect(direct["vary"]).toBe("Origin");
    expect(direct["x-ratelimit-limit-requests"]).toBe("1000");
    expect(direct["x-ratelimit-remaining-requests"]).toMatch(/^\d+$/);
    expect(direct["x-ratelimit-limit-tokens"]).toBe("10000000");
    expect(Object.keys(direct).filter((name) => name.startsWith("x-mcp-gateway") || name.startsWith("x-hono"))).toEqual([]);
    expect(response.headers.has(MARKER)).toBe(false);
    expect(door.text(body)).toBe("Written straight to the socket.");

    // The same request answered in process (no Node server: the web stream): the same head.
    upstream.script([{ text: "Written straight to the socket." }]);
    const web = await gateway.app.request(path, { method: "POST", headers: headersFor("direct-1"), body: JSON.stringify(door.body("fake/m")) });
    expect(web.body).toBeInstanceOf(ReadableStream);
    const webHeaders = appHeaders(web.headers);
    expect(door.text(await web.text())).toBe("Written straight to the socket.");
    expect(Object.keys(direct).sort()).toEqual(Object.keys(webHeaders).sort());
    for (const [name, value] of Object.entries(webHeaders)) if (!MOVING.test(name)) expect([name, direct[name]]).toEqual([name, value]);
    expect(directStreamsOpen()).toBe(0);
  });

  it("aborted by its client mid-stream: the gateway aborts the upstream and keeps no stream", async () => {
    const hold = deferred();
    upstream.script(() => ({ text: "a long answer", hang: hold.promise }));
    const client = new AbortController();
    const response = await fetch(`${server.url}${path}`, { method: "POST", headers: headersFor("direct-abort"), body: JSON.stringify(door.body("fake/m")), signal: client.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let seen = "";
    while (!seen.includes("a long")) seen += new TextDecoder().decode((await reader.read()).value);
    // Held open by the upstream: this stream is being written directly.
    expect(directStreamsOpen()).toBe(1);
    client.abort();
    await upstream.closed(0); // the gateway closed its upstream connection
    // The stream was cancelled when the client's connection closed, before the upstream's could.
    expect(directStreamsOpen()).toBe(0);
    hold.resolve();
  });
});

describe.each(DOORS)("a streamed answer on %s with no middleware after the handler (no CORS, no key limits)", (path, door) => {
  let plain: Gateway;
  let plainServer: Listening;
  beforeAll(async () => {
    const config = resolveConfig({ mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } }, gateway: { retries: { attempts: 1 } } }, {});
    plain = await createGateway(config, { logger: silentLogger(), heartbeatMs: 600_000 });
    plainServer = await listen(plain.app, "127.0.0.1", 0);
  });
  afterAll(async () => {
    await plainServer?.close(200);
    await plain?.close();
  });

  it("has the head the handler made, with the request's ids, and the in-process app's header names", async () => {
    upstream.script([{ text: "Plain head." }]);
    const response = await fetch(`${plainServer.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(door.body("fake/m")) });
    expect(response.status).toBe(200);
    const direct = appHeaders(response.headers);
    expect(door.text(await response.text())).toBe("Plain head.");
    const id = direct["x-request-id"];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(direct["request-id"]).toBe(path === "/v1/messages" ? id : undefined);
    expect(direct["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(direct["cache-control"]).toBe("no-cache");
    expect(Object.keys(direct).filter((name) => name.startsWith("x-mcp-gateway") || name.startsWith("x-hono"))).toEqual([]);

    upstream.script([{ text: "Plain head." }]);
    const web = await plain.app.request(path, { method: "POST", headers: { "content-type": "application/json", host: new URL(plainServer.url).host, "x-request-id": id! }, body: JSON.stringify(door.body("fake/m")) });
    expect(door.text(await web.text())).toBe("Plain head.");
    expect(Object.keys(direct).sort()).toEqual(Object.keys(appHeaders(web.headers)).sort());
    expect(directStreamsOpen()).toBe(0);
  });
});

/** Answers each chat request with `deltas` (OpenAI chunks), each write waiting for 'drain' when the socket is full. */
function largeOpenAiStream(upstream: FakeUpstream, deltas: string[]): void {
  upstream.handle(async (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const base = { id: "chatcmpl-large", object: "chat.completion.chunk", created: 1, model: "m" };
    const send = async (choice: object) => {
      if (!res.write(`data: ${JSON.stringify({ ...base, choices: [choice] })}\n\n`)) await new Promise((resolve) => res.once("drain", resolve));
    };
    await send({ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null });
    for (const delta of deltas) await send({ index: 0, delta: { content: delta }, finish_reason: null });
    await send({ index: 0, delta: {}, finish_reason: "stop" });
    res.end("data: [DONE]\n\n");
  });
}

/**
 * Watches the gateway's writes to one answer: those refused (the socket full), those made while
 * it had to wait for 'drain'. `settled` resolves at the first of: the gateway waiting for 'drain'
 * (what it must do once refused), a write into the full socket (what it must not), the end.
 */
function watchWrites(res: ServerResponse) {
  const seen = { refused: 0, whileFull: 0, waitedForDrain: false, settled: deferred() };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  res.write = ((...args: unknown[]) => {
    if (res.writableNeedDrain) {
      seen.whileFull++;
      seen.settled.resolve();
    }
    const ok = write(...args);
    if (!ok) seen.refused++;
    return ok;
  }) as ServerResponse["write"];
  const once = res.once.bind(res);
  res.once = ((event: string, listener: (...args: unknown[]) => void) => {
    if (event === "drain" && res.writableNeedDrain) {
      seen.waitedForDrain = true;
      seen.settled.resolve();
    }
    return once(event, listener);
  }) as ServerResponse["once"];
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    seen.settled.resolve();
    return end(...args);
  }) as ServerResponse["end"];
  return seen;
}

describe("a reader slower than the stream", () => {
  it("gets every byte of a large answer; the gateway waits for 'drain' instead of writing into a full socket", async () => {
    // 8 MB of text: far more than the sockets' buffers between the gateway and a reader that stops.
    const deltas = Array.from({ length: 512 }, (_, i) => `${String(i).padStart(6, "0")}${"x".repeat(16 * 1024 - 6)}`);
    largeOpenAiStream(upstream, deltas);
    let writes: ReturnType<typeof watchWrites> | undefined;
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (req.url === "/v1/chat/completions") writes = watchWrites(res);
    };
    server.server.on("request", onRequest);
    try {
      const answer = await new Promise<{ type: string | undefined; body: string }>((resolve, reject) => {
        const req = httpRequest(`${server.url}/v1/chat/completions`, { method: "POST", headers: headersFor("direct-slow") }, (res) => {
          // Reads nothing until the gateway, its socket full, waits for it (or writes on regardless).
          res.pause();
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () => resolve({ type: res.headers["content-type"], body: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
          void writes!.settled.promise.then(() => res.resume());
        });
        req.on("error", reject);
        req.end(JSON.stringify({ model: "fake/m", stream: true, messages: [{ role: "user", content: "a long one" }] }));
      });
      expect(answer.type).toBe("text/event-stream; charset=utf-8");
      expect(writes!.refused).toBeGreaterThan(0);
      expect(writes!.waitedForDrain).toBe(true);
      expect(writes!.whileFull).toBe(0);
      expect(DOORS[0]![1].text(answer.body)).toBe(deltas.join(""));
      expect(directStreamsOpen()).toBe(0);
    } finally {
      server.server.off("request", onRequest);
      upstream.script([{ text: "ok" }]);
    }
  });
});
