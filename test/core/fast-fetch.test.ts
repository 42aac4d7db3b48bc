/**
 * fastFetch (undici `request` behind the fetch signature) against a real local HTTP server.
 *
 * The fetch-contract tests run twice: once on fastFetch and once on Node's own fetch, the
 * reference, so each assertion is known to describe fetch's behaviour and not an accident of
 * the implementation. Then the official SDKs are driven through it, and last come the edge cases
 * where fastFetch once differed from fetch (aborts while reading, double reads, locked bodies,
 * form uploads), again with Node's fetch as the control.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { fastFetch } from "../../src/core/fast-fetch.ts";

// ---------------------------------------------------------------------------------------------
// The local server: each test registers its own path (unique per test), and gets the request
// handed over once its body is in, to answer or to drive the response step by step.

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  body: string;
}
type Handler = (exchange: Exchange) => void;

const routes = new Map<string, Handler>();
let server: Server;
let base = "";
let counter = 0;

async function listen(handlerFor: (path: string) => Handler | undefined): Promise<{ server: Server; base: string }> {
  const created = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const path = new URL(req.url ?? "/", "http://local").pathname;
      const handler = handlerFor(path);
      if (!handler) {
        res.writeHead(599, { "content-type": "text/plain" });
        res.end(`no route for ${path}`);
        return;
      }
      handler({ req, res, body: Buffer.concat(chunks).toString("utf8") });
    });
  });
  await new Promise<void>((resolve) => created.listen(0, "127.0.0.1", resolve));
  return { server: created, base: `http://127.0.0.1:${(created.address() as AddressInfo).port}` };
}

async function shut(target: Server): Promise<void> {
  target.closeAllConnections();
  await new Promise<void>((resolve, reject) => target.close((error) => (error ? reject(error) : resolve())));
}

beforeAll(async () => {
  ({ server, base } = await listen((path) => routes.get(path)));
});
afterAll(async () => {
  await shut(server);
});

/** A fresh path prefix; `route` answers under it. */
function fresh(name: string): string {
  counter += 1;
  return `/${name}-${counter}`;
}

function route(handler: Handler, name = "r"): string {
  const path = fresh(name);
  routes.set(path, handler);
  return base + path;
}

/** A route whose exchange the test takes over (to write the response itself, or not at all). */
function hold(name = "held"): { url: string; exchange: Promise<Exchange> } {
  let resolve!: (exchange: Exchange) => void;
  const exchange = new Promise<Exchange>((r) => (resolve = r));
  return { url: route(resolve, name), exchange };
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Resolves once the server side of the exchange is closed (socket gone or response done). */
function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => (res.closed ? resolve() : res.once("close", () => resolve())));
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection, but the promise resolved");
}

/** Reads a web stream to the end, returning every chunk. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array[]> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(value);
  }
}

const utf8 = () => new TextDecoder();

const implementations = [
  ["fastFetch", fastFetch],
  ["Node's fetch (reference)", globalThis.fetch],
] as const;

// ---------------------------------------------------------------------------------------------

describe.each(implementations)("fetch contract: %s", (_name, doFetch) => {
  describe("requests and whole bodies", () => {
    it.each([
      ["a Headers instance", () => new Headers({ "content-type": "application/json", "x-trace": "abc", authorization: "Bearer t" })],
      ["a plain object", () => ({ "Content-Type": "application/json", "X-Trace": "abc", Authorization: "Bearer t" })],
      ["an array of pairs", () => [["content-type", "application/json"], ["x-trace", "abc"], ["authorization", "Bearer t"]] as [string, string][]],
    ])("POSTs a string body with headers given as %s; json() parses the answer", async (_kind, makeHeaders) => {
      const seen: Exchange[] = [];
      const url = route((exchange) => {
        seen.push(exchange);
        sendJson(exchange.res, 201, { echoed: JSON.parse(exchange.body) as unknown, method: exchange.req.method }, { "x-answer": "yes" });
      });
      const payload = JSON.stringify({ model: "m", messages: [{ role: "user", content: "héllo ✓" }] });

      const response = await doFetch(url, { method: "POST", headers: makeHeaders(), body: payload });

      expect(seen).toHaveLength(1);
      const { req, body } = seen[0]!;
      expect(req.method).toBe("POST");
      expect(req.headers["content-type"]).toBe("application/json");
      expect(req.headers["x-trace"]).toBe("abc");
      expect(req.headers.authorization).toBe("Bearer t");
      expect(body).toBe(payload);
      expect(req.headers["content-length"]).toBe(String(Buffer.byteLength(payload)));

      expect(response.status).toBe(201);
      expect(response.ok).toBe(true);
      expect(response.url).toBe(url);
      expect(response.headers).toBeInstanceOf(Headers);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(response.headers.get("X-Answer")).toBe("yes");
      expect(response.bodyUsed).toBe(false);
      expect(await response.json()).toEqual({ echoed: JSON.parse(payload) as unknown, method: "POST" });
      expect(response.bodyUsed).toBe(true);
    });

    it("GETs by default, and takes a URL object as input", async () => {
      const seen: string[] = [];
      const url = route(({ req, res }) => {
        seen.push(`${req.method} ${req.url}`);
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
        res.end("plain ✓");
      });
      const target = new URL(`${url}?q=1`);
      const response = await doFetch(target);
      expect(seen).toEqual([`GET ${new URL(url).pathname}?q=1`]);
      expect(response.url).toBe(target.href);
      expect(await response.text()).toBe("plain ✓");
    });

    it("sends a Uint8Array body byte for byte", async () => {
      const seen: string[] = [];
      const url = route(({ body, res }) => {
        seen.push(body);
        res.end("ok");
      });
      const response = await doFetch(url, { method: "PUT", body: new TextEncoder().encode("bytes ✓") });
      expect(await response.text()).toBe("ok");
      expect(seen).toEqual(["bytes ✓"]);
    });

    it.each([400, 404, 422, 500, 503])("a %i JSON error body is read with text(); ok is false", async (status) => {
      const error = { error: { message: `failed with ${status}`, type: "invalid_request_error", code: null } };
      const url = route(({ res }) => sendJson(res, status, error));
      const response = await doFetch(url, { method: "POST", body: "{}" });
      expect(response.status).toBe(status);
      expect(response.ok).toBe(false);
      expect(response.headers.get("content-type")).toBe("application/json");
      const text = await response.text();
      expect(text).toBe(JSON.stringify(error));
      expect(response.bodyUsed).toBe(true);
    });

    it("ok is true for every 2xx status", async () => {
      const url = route(({ req, res }) => {
        const status = Number(new URL(req.url ?? "/", "http://local").searchParams.get("s"));
        res.writeHead(status);
        res.end(status === 204 ? undefined : "x");
      });
      const results: Array<[number, boolean]> = [];
      for (const status of [200, 202, 204, 299]) {
        const response = await doFetch(`${url}?s=${status}`);
        await response.text();
        results.push([response.status, response.ok]);
      }
      expect(results).toEqual([
        [200, true],
        [202, true],
        [204, true],
        [299, true],
      ]);
    });

    it("keeps multi-valued response headers: several set-cookie, a repeated custom header", async () => {
      const url = route(({ res }) => {
        res.setHeader("set-cookie", ["a=1; Path=/", "b=2; HttpOnly"]);
        res.setHeader("x-multi", ["one", "two", "three"]);
        res.setHeader("x-single", "solo");
        res.end("ok");
      });
      const response = await doFetch(url);
      expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; HttpOnly"]);
      expect(response.headers.get("x-multi")).toBe("one, two, three");
      expect(response.headers.get("x-single")).toBe("solo");
      await response.text();
    });

    it("arrayBuffer() and blob() return the exact bytes; blob() carries the content type", async () => {
      const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255]);
      const url = route(({ res }) => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.end(bytes);
      });
      const buffer = await (await doFetch(url)).arrayBuffer();
      expect(buffer).toBeInstanceOf(ArrayBuffer);
      expect(Buffer.from(buffer).equals(bytes)).toBe(true);

      const blob = await (await doFetch(url)).blob();
      expect(blob.type).toBe("application/octet-stream");
      expect(blob.size).toBe(bytes.length);
      expect(Buffer.from(await blob.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it("a large (6 MiB) body written with backpressure arrives intact via arrayBuffer() and via body", async () => {
      const big = Buffer.alloc(6 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 9)) & 0xff;
      const digest = createHash("sha256").update(big).digest("hex");
      const url = route(({ res }) => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        // Many writes, with the server honouring backpressure.
        let offset = 0;
        const pump = (): void => {
          while (offset < big.length) {
            const slice = big.subarray(offset, offset + 64 * 1024);
            offset += slice.length;
            if (!res.write(slice)) {
              res.once("drain", pump);
              return;
            }
          }
          res.end();
        };
        pump();
      });

      const whole = Buffer.from(await (await doFetch(url)).arrayBuffer());
      expect(whole.length).toBe(big.length);
      expect(createHash("sha256").update(whole).digest("hex")).toBe(digest);

      const chunks = await readAll((await doFetch(url)).body!);
      expect(chunks.length).toBeGreaterThan(1);
      const streamed = Buffer.concat(chunks);
      expect(streamed.length).toBe(big.length);
      expect(createHash("sha256").update(streamed).digest("hex")).toBe(digest);
    });

    it("invalid JSON: json() rejects with a SyntaxError (read directly and through body)", async () => {
      const url = route(({ res }) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id": "x", oops}');
      });
      const direct = await doFetch(url);
      expect(await rejectionOf(direct.json())).toBeInstanceOf(SyntaxError);

      const viaBody = await doFetch(url);
      expect(viaBody.body).not.toBeNull();
      expect(await rejectionOf(viaBody.json())).toBeInstanceOf(SyntaxError);
    });

    it("an empty 200 body: json() rejects with a SyntaxError, text() is empty", async () => {
      const url = route(({ res }) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": "0" });
        res.end();
      });
      expect(await rejectionOf((await doFetch(url)).json())).toBeInstanceOf(SyntaxError);
      expect(await (await doFetch(url)).text()).toBe("");
    });
  });

  describe("empty answers", () => {
    it("204: body is null, text() is empty, arrayBuffer() is zero bytes, json() is a SyntaxError", async () => {
      const url = route(({ res }) => {
        res.writeHead(204, { "x-after": "done" });
        res.end();
      });
      const response = await doFetch(url, { method: "DELETE" });
      expect(response.status).toBe(204);
      expect(response.ok).toBe(true);
      expect(response.headers.get("x-after")).toBe("done");
      expect(response.body).toBeNull();
      expect(response.bodyUsed).toBe(false);
      expect(await response.text()).toBe("");

      expect((await (await doFetch(url, { method: "DELETE" })).arrayBuffer()).byteLength).toBe(0);
      expect(await rejectionOf((await doFetch(url, { method: "DELETE" })).json())).toBeInstanceOf(SyntaxError);
    });

    it("304: body is null and text() is empty", async () => {
      const url = route(({ res }) => {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
      });
      const response = await doFetch(url, { headers: { "if-none-match": '"v1"' } });
      expect(response.status).toBe(304);
      expect(response.ok).toBe(false);
      expect(response.headers.get("etag")).toBe('"v1"');
      expect(response.body).toBeNull();
      expect(await response.text()).toBe("");
    });

    it("HEAD: body is null and text() is empty, though the GET would have a body", async () => {
      const url = route(({ res }) => {
        res.writeHead(200, { "content-type": "text/plain", "x-kind": "head-or-get" });
        res.end("the GET body");
      });
      const response = await doFetch(url, { method: "HEAD" });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-kind")).toBe("head-or-get");
      expect(response.body).toBeNull();
      expect(await response.text()).toBe("");
      // The connection is still good for the next request.
      expect(await (await doFetch(url)).text()).toBe("the GET body");
    });
  });

  describe("the body stream", () => {
    const events = [
      'data: {"n":1,"text":"Hel"}\n\n',
      'data: {"n":2,"text":"lo, "}\n\n',
      ": a comment line\n\n",
      'data: {"n":3,"text":"wörld ✓"}\n\n',
      "data: [DONE]\n\n",
    ];

    it("an SSE answer written event by event arrives in order through getReader(), each before the next is written", async () => {
      const { url, exchange } = hold("sse");
      const pending = doFetch(url, { method: "POST", headers: { accept: "text/event-stream" }, body: "{}" });
      const { res } = await exchange;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(events[0]);
      const response = await pending;
      expect(response.headers.get("content-type")).toBe("text/event-stream");

      const reader = response.body!.getReader();
      const text = utf8();
      let received = "";
      const progress: string[] = [];
      for (const [i, event] of events.entries()) {
        if (i > 0) res.write(event);
        const expected = events.slice(0, i + 1).join("");
        while (received.length < expected.length) {
          const { done, value } = await reader.read();
          expect(done).toBe(false);
          received += text.decode(value, { stream: true });
        }
        progress.push(received);
      }
      // Every event was readable before the server wrote the next one.
      expect(progress).toEqual(events.map((_, i) => events.slice(0, i + 1).join("")));
      res.end();
      expect((await reader.read()).done).toBe(true);
    });

    it("the same SSE answer read with for await, the server writing on as each event lands", async () => {
      const { url, exchange } = hold("sse-iter");
      const pending = doFetch(url);
      const { res } = await exchange;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(events[0]);
      const response = await pending;

      const text = utf8();
      let received = "";
      let written = 1;
      for await (const chunk of response.body!) {
        received += text.decode(chunk, { stream: true });
        if (received === events.slice(0, written).join("")) {
          if (written < events.length) res.write(events[written]);
          else res.end();
          written += 1;
        }
      }
      expect(received).toBe(events.join(""));
      expect(written).toBe(events.length + 1);
    });

    it("body accessed first, then text(): the whole answer comes through the web stream", async () => {
      const { url, exchange } = hold("body-then-text");
      const pending = doFetch(url);
      const { res } = await exchange;
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first part, ");
      const response = await pending;
      const body = response.body;
      expect(body).not.toBeNull();
      expect(response.body).toBe(body); // the same stream each time
      const whole = response.text();
      res.write("second part, ");
      res.end("end");
      expect(await whole).toBe("first part, second part, end");
      expect(response.bodyUsed).toBe(true);
    });

    it("body accessed first, then json()", async () => {
      const url = route(({ res }) => sendJson(res, 200, { a: [1, 2, 3] }));
      const response = await doFetch(url);
      expect(response.body).toBeInstanceOf(ReadableStream);
      expect(await response.json()).toEqual({ a: [1, 2, 3] });
    });

    it("cancelling the body closes the connection; the next request to the origin still works", async () => {
      const { url, exchange } = hold("cancel");
      const pending = doFetch(url);
      const { res } = await exchange;
      const serverSide = closed(res);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: 1\n\n");
      const response = await pending;
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe("data: 1\n\n");
      await reader.cancel();
      await serverSide;
      expect(res.writableEnded).toBe(false); // it was cut, not finished

      const next = route(({ res: r }) => r.end("still fine"));
      expect(await (await doFetch(next)).text()).toBe("still fine");
    });

    it("reuses pooled keep-alive connections for sequential calls to one origin", async () => {
      const ports: number[] = [];
      const own = await listen(() => ({ req, res }) => {
        ports.push(req.socket.remotePort ?? -1);
        res.end("ok");
      });
      try {
        for (let i = 0; i < 6; i++) expect(await (await doFetch(`${own.base}/k`)).text()).toBe("ok");
        expect(ports).toHaveLength(6);
        // undici's pool may open a second connection while the first is being released, but
        // connections are reused rather than one opened per call.
        expect(new Set(ports).size).toBeLessThanOrEqual(2);
      } finally {
        await shut(own.server);
      }
    });
  });

  describe("a connection cut mid-body", () => {
    /** Headers and part of the body are out; the test then destroys the socket. */
    async function cutAfterPart(part: string): Promise<{ response: Response; cut: () => void }> {
      const { url, exchange } = hold("cut");
      const pending = doFetch(url, { method: "POST", body: "{}" });
      const { res } = await exchange;
      res.writeHead(200, { "content-type": "application/json" });
      res.write(part);
      const response = await pending;
      return { response, cut: () => res.socket!.destroy() };
    }

    function expectTerminated(error: unknown): void {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe("terminated");
      const cause = (error as Error).cause;
      expect(cause).toBeInstanceOf(Error);
    }

    it.each(["json", "text", "arrayBuffer", "blob"] as const)(
      "%s() rejects with TypeError('terminated') whose cause is the socket error",
      async (method) => {
        const { response, cut } = await cutAfterPart('{"choices": [');
        const reading = response[method]();
        cut();
        const error = await rejectionOf(reading);
        expectTerminated(error);
        expect((error as Error).cause).toMatchObject({ code: "UND_ERR_SOCKET" });
      },
    );

    it("reading body: the part sent arrives, then the read rejects with TypeError('terminated')", async () => {
      const { response, cut } = await cutAfterPart('data: {"n":1}\n\n');
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      expect(new TextDecoder().decode(first.value)).toBe('data: {"n":1}\n\n');
      cut();
      const error = await rejectionOf(reader.read());
      expectTerminated(error);
      expect((error as Error).cause).toMatchObject({ code: "UND_ERR_SOCKET" });
    });

    it("body accessed, then text(): rejects with TypeError('terminated') that has a cause", async () => {
      const { response, cut } = await cutAfterPart('{"partial": ');
      void response.body;
      const reading = response.text();
      cut();
      expectTerminated(await rejectionOf(reading));
    });

    it("a connection cut before any header: the call itself rejects", async () => {
      const url = route(({ req }) => req.socket.destroy());
      const error = await rejectionOf(doFetch(url));
      expect(error).toBeInstanceOf(Error);
    });
  });

  describe("abort", () => {
    it("an already-aborted signal rejects with its reason (a DOMException AbortError by default)", async () => {
      const hits: string[] = [];
      const url = route(({ req, res }) => {
        hits.push(req.url ?? "");
        res.end("should not be asked");
      });
      const signal = AbortSignal.abort();
      const error = await rejectionOf(doFetch(url, { signal }));
      expect(error).toBe(signal.reason);
      expect((error as Error).name).toBe("AbortError");

      const reason = new Error("caller went away");
      expect(await rejectionOf(doFetch(url, { method: "POST", body: "x", signal: AbortSignal.abort(reason) }))).toBe(reason);

      // Neither call reached the server: the one after them is the first it sees.
      expect(await (await doFetch(`${url}?after`)).text()).toBe("should not be asked");
      expect(hits).toEqual([`${new URL(url).pathname}?after`]);
    });

    it("aborting while waiting for the headers rejects with the abort reason and drops the connection", async () => {
      const { url, exchange } = hold("abort-wait");
      const controller = new AbortController();
      const pending = doFetch(url, { method: "POST", body: "{}", signal: controller.signal });
      const { res } = await exchange;
      const serverSide = closed(res);
      controller.abort();
      const error = await rejectionOf(pending);
      expect(error).toBe(controller.signal.reason);
      expect((error as Error).name).toBe("AbortError");
      await serverSide;
      expect(res.headersSent).toBe(false);
    });

    it("aborting with a custom reason while waiting rejects with that very reason", async () => {
      const { url, exchange } = hold("abort-reason");
      const controller = new AbortController();
      const pending = doFetch(url, { signal: controller.signal });
      await exchange;
      const reason = new Error("idle timeout");
      controller.abort(reason);
      expect(await rejectionOf(pending)).toBe(reason);
    });

    it("an abort after the response is complete changes nothing", async () => {
      const url = route(({ res }) => sendJson(res, 200, { fine: true }));
      const controller = new AbortController();
      const response = await doFetch(url, { signal: controller.signal });
      const body = await response.json();
      controller.abort();
      expect(body).toEqual({ fine: true });
      expect(response.status).toBe(200);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe("fastFetch specifics", () => {
  it("sends the path and query of the URL, each time (the URL's parse is kept)", async () => {
    const seen: string[] = [];
    const url = route(({ req, res }) => {
      seen.push(req.url ?? "");
      res.end("ok");
    });
    for (let i = 0; i < 2; i++) expect(await (await fastFetch(`${url}?key=a%20b&x=1`, { method: "POST", body: "{}" })).text()).toBe("ok");
    expect(seen).toHaveLength(2);
    for (const path of seen) expect(path.endsWith("?key=a%20b&x=1")).toBe(true);
  });

  it("refuses a URL that is not http(s) as undici's request does", async () => {
    const undici = await import("undici");
    const theirs = await Promise.resolve()
      .then(() => undici.request("ftp://127.0.0.1/x", { method: "POST", body: "{}" }))
      .catch((error: Error) => error);
    const ours = await fastFetch("ftp://127.0.0.1/x", { method: "POST", body: "{}" }).catch((error: Error) => error);
    expect(ours).toBeInstanceOf(undici.errors.InvalidArgumentError);
    expect((ours as Error).message).toBe((theirs as Error).message);
  });

  it("does not go through the global fetch for the SDKs' call shape (url string + init)", async () => {
    const spy = vi.spyOn(globalThis, "fetch");
    try {
      const url = route(({ res }) => res.end("direct"));
      const response = await fastFetch(url, { method: "POST", headers: new Headers({ a: "b" }), body: "{}" });
      expect(await response.text()).toBe("direct");
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });

  it("a Request object on its own is passed to the real fetch unchanged (method, headers, body)", async () => {
    const seen: Array<[string | undefined, string | undefined, string]> = [];
    const url = route(({ req, res, body }) => {
      seen.push([req.method, req.headers["x-req"] as string | undefined, body]);
      res.end("from request");
    });
    const response = await fastFetch(new Request(url, { method: "PUT", headers: { "x-req": "1" }, body: "payload" }));
    expect(await response.text()).toBe("from request");
    expect(response).toBeInstanceOf(Response);
    expect(seen).toEqual([["PUT", "1", "payload"]]);
  });

  it("statusText is the server's reason phrase (the MCP SDK puts it in its errors)", async () => {
    const url = route(({ res }) => {
      res.statusCode = 405;
      res.end();
    });
    const response = await fastFetch(url, { method: "POST", body: "{}" });
    expect(response.status).toBe(405);
    expect(response.statusText).toBe("Method Not Allowed");
    await response.text();
  });

  it("many concurrent calls sharing one signal (as the MCP transports do) raise no MaxListenersExceededWarning", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const url = route(({ res }) => res.end("ok"));
      const shared = new AbortController().signal;
      const responses = await Promise.all(Array.from({ length: 25 }, () => fastFetch(url, { method: "POST", body: "{}", signal: shared })));
      expect(await Promise.all(responses.map((r) => r.text()))).toEqual(Array(25).fill("ok"));
      // Warnings are emitted on process.nextTick: let that pass before looking.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});

// ---------------------------------------------------------------------------------------------

type ApiError = InstanceType<typeof OpenAI.APIError>;

describe("through the openai SDK", () => {
  const completion = {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [{ index: 0, message: { role: "assistant", content: "Hello there!", refusal: null }, logprobs: null, finish_reason: "stop" }],
    usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
  };
  const chunk = (content: string | null, finish: string | null) => ({
    id: "chatcmpl-2",
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: "gpt-test",
    choices: [{ index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finish }],
  });

  /** An openai client at a fresh prefix of the server; `handler` answers its calls. */
  function client(handler: Handler): { openai: OpenAI; requests: Exchange[] } {
    const prefix = fresh("openai");
    const requests: Exchange[] = [];
    routes.set(`${prefix}/v1/chat/completions`, (exchange) => {
      requests.push(exchange);
      handler(exchange);
    });
    return { openai: new OpenAI({ apiKey: "k", baseURL: `${base}${prefix}/v1`, fetch: fastFetch, maxRetries: 0 }), requests };
  }

  it("a non-streamed chat completion comes back parsed", async () => {
    const { openai, requests } = client(({ res }) => sendJson(res, 200, completion, { "x-request-id": "req_123" }));
    const result = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] });
    expect(result).toEqual(completion);

    expect(requests).toHaveLength(1);
    const { req, body } = requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.headers.authorization).toBe("Bearer k");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(body)).toEqual({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] });
  });

  it("withResponse() exposes the status and headers read from fastFetch", async () => {
    const { openai } = client(({ res }) => sendJson(res, 200, completion, { "x-request-id": "req_456" }));
    const { data, response, request_id } = await openai.chat.completions
      .create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] })
      .withResponse();
    expect(data.choices[0]!.message.content).toBe("Hello there!");
    expect(response.status).toBe(200);
    expect(request_id).toBe("req_456");
  });

  it("a streamed chat completion yields every chunk in order", async () => {
    const chunks = [chunk("Hel", null), chunk("lo", null), chunk(" wörld", null), chunk(null, "stop")];
    const { openai, requests } = client(({ res }) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
      res.end("data: [DONE]\n\n");
    });
    const stream = await openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }], stream: true });
    const got: unknown[] = [];
    for await (const c of stream) got.push(c);
    expect(got).toEqual(chunks);
    expect(JSON.parse(requests[0]!.body)).toMatchObject({ stream: true });
  });

  it("a streamed completion delivers each chunk before the server writes the next", async () => {
    let take!: (exchange: Exchange) => void;
    const exchange = new Promise<Exchange>((resolve) => (take = resolve));
    const { openai } = client((e) => take(e));
    const streaming = openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }], stream: true });
    const { res } = await exchange;
    const parts = ["a", "b", "c"];
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify(chunk(parts[0]!, null))}\n\n`);
    const stream = await streaming;
    const got: string[] = [];
    for await (const c of stream) {
      got.push(c.choices[0]?.delta.content ?? "");
      if (got.length < parts.length) res.write(`data: ${JSON.stringify(chunk(parts[got.length]!, null))}\n\n`);
      else res.end("data: [DONE]\n\n");
    }
    expect(got).toEqual(parts);
  });

  it("an upstream 429 becomes OpenAI.RateLimitError with status, body and retry-after", async () => {
    const errorBody = { error: { message: "Rate limit reached for gpt-test", type: "requests", param: null, code: "rate_limit_exceeded" } };
    const { openai, requests } = client(({ res }) => sendJson(res, 429, errorBody, { "retry-after": "7", "x-request-id": "req_429" }));
    const error = await rejectionOf(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] }));
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get("retry-after")).toBe("7");
    expect(rateLimit.requestID).toBe("req_429");
    expect(rateLimit.code).toBe("rate_limit_exceeded");
    expect(rateLimit.message).toContain("Rate limit reached for gpt-test");
    expect(requests).toHaveLength(1);
  });

  it("an upstream 500 becomes OpenAI.InternalServerError; a streamed 400 becomes BadRequestError", async () => {
    const { openai } = client(({ body, res }) => {
      if ((JSON.parse(body) as { stream?: boolean }).stream) sendJson(res, 400, { error: { message: "bad stream", type: "invalid_request_error" } });
      else sendJson(res, 500, { error: { message: "upstream broke", type: "server_error" } });
    });
    const call = { model: "gpt-test", messages: [{ role: "user" as const, content: "Hi" }] };
    const internal = await rejectionOf(openai.chat.completions.create(call));
    expect(internal).toBeInstanceOf(OpenAI.InternalServerError);
    expect((internal as ApiError).status).toBe(500);
    expect((internal as ApiError).message).toContain("upstream broke");

    const bad = await rejectionOf(openai.chat.completions.create({ ...call, stream: true }));
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as ApiError).message).toContain("bad stream");
  });

  it("a connection cut before the headers becomes APIConnectionError", async () => {
    const { openai } = client(({ req }) => req.socket.destroy());
    const error = await rejectionOf(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] }));
    expect(error).toBeInstanceOf(OpenAI.APIConnectionError);
  });

  it("a non-streamed body cut mid-way surfaces as TypeError('terminated'), the shape the adapter maps", async () => {
    const { openai } = client(({ res }) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      // The start of the body is flushed, then the socket goes.
      res.write('{"id": "chatcmpl-1", "choices": [', () => res.socket?.destroy());
    });
    const error = await rejectionOf(openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }] }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("terminated");
  });

  it("a streamed body cut mid-way: the chunks so far, then TypeError('terminated')", async () => {
    let take!: (exchange: Exchange) => void;
    const exchange = new Promise<Exchange>((resolve) => (take = resolve));
    const { openai } = client((e) => take(e));
    const streaming = openai.chat.completions.create({ model: "gpt-test", messages: [{ role: "user", content: "Hi" }], stream: true });
    const { res } = await exchange;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`data: ${JSON.stringify(chunk("one", null))}\n\n`);
    const stream = await streaming;
    const got: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const c of stream) {
          got.push(c.choices[0]?.delta.content ?? "");
          res.socket!.destroy();
        }
      })(),
    );
    expect(got).toEqual(["one"]);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe("terminated");
  });
});

describe("through the @anthropic-ai/sdk SDK", () => {
  const message = {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content: [{ type: "text", text: "Hello from Claude" }],
    stop_reason: "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 4, output_tokens: 5 },
  };

  function client(handler: Handler): { anthropic: Anthropic; requests: Exchange[] } {
    const prefix = fresh("anthropic");
    const requests: Exchange[] = [];
    routes.set(`${prefix}/v1/messages`, (exchange) => {
      requests.push(exchange);
      handler(exchange);
    });
    return { anthropic: new Anthropic({ apiKey: "ak", baseURL: `${base}${prefix}`, fetch: fastFetch, maxRetries: 0 }), requests };
  }

  const ask = { model: "claude-test", max_tokens: 16, messages: [{ role: "user" as const, content: "Hi" }] };

  it("a non-streamed message comes back parsed", async () => {
    const { anthropic, requests } = client(({ res }) => sendJson(res, 200, message));
    const result = await anthropic.messages.create(ask);
    expect(result).toEqual(message);
    const { req, body } = requests[0]!;
    expect(req.method).toBe("POST");
    // This SDK version sends the key as a bearer token; older ones used x-api-key.
    expect(req.headers.authorization ?? req.headers["x-api-key"]).toMatch(/^(Bearer )?ak$/);
    expect(req.headers["anthropic-version"]).toBeTypeOf("string");
    expect(JSON.parse(body)).toEqual(ask);
  });

  it("a streamed message yields every event in order", async () => {
    const events = [
      { type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { input_tokens: 4, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } },
      { type: "message_stop" },
    ];
    const { anthropic } = client(({ res }) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const event of events) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      res.end();
    });
    const stream = await anthropic.messages.create({ ...ask, stream: true });
    const got: unknown[] = [];
    for await (const event of stream) got.push(event);
    expect(got).toEqual(events);
  });

  it("an upstream 429 becomes Anthropic.RateLimitError with retry-after readable", async () => {
    const { anthropic } = client(({ res }) =>
      sendJson(res, 429, { type: "error", error: { type: "rate_limit_error", message: "slow down" } }, { "retry-after": "3", "request-id": "req_a" }),
    );
    const error = await rejectionOf(anthropic.messages.create(ask));
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rateLimit = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.headers.get("retry-after")).toBe("3");
    expect(rateLimit.message).toContain("slow down");
  });
});

// ---------------------------------------------------------------------------------------------
// Edge cases where fastFetch once differed from fetch. Each scenario runs on Node's fetch (it
// must pass: the scenario is sound) and on fastFetch.

describe("edge cases, the same as fetch", () => {
  function both(title: string, scenario: (doFetch: typeof fetch) => Promise<void>): void {
    it(`${title} [Node's fetch]`, () => scenario(globalThis.fetch));
    it(`${title} [fastFetch]`, () => scenario(fastFetch));
  }

  /** Headers and a first part of the body are out; the connection then stays open. */
  async function midBody(doFetch: typeof fetch, signal: AbortSignal): Promise<{ response: Response; res: ServerResponse }> {
    const { url, exchange } = hold("mid-body");
    const pending = doFetch(url, { signal });
    const { res } = await exchange;
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"partial": ');
    return { response: await pending, res };
  }

  both("an abort while json() reads the body rejects with the abort reason (an AbortError)", async (doFetch) => {
    const controller = new AbortController();
    const { response } = await midBody(doFetch, controller.signal);
    const reading = response.json();
    controller.abort();
    const error = await rejectionOf(reading);
    expect((error as Error).name).toBe("AbortError");
  });

  both("an abort while the body stream is read errors it with the abort reason (an AbortError)", async (doFetch) => {
    const controller = new AbortController();
    const { response } = await midBody(doFetch, controller.signal);
    const reader = response.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    controller.abort();
    const error = await rejectionOf(reader.read());
    expect((error as Error).name).toBe("AbortError");
  });

  both("openai SDK: stream.controller.abort() mid-stream ends the iteration quietly", async (doFetch) => {
    let take!: (exchange: Exchange) => void;
    const exchange = new Promise<Exchange>((resolve) => (take = resolve));
    const prefix = fresh("openai-abort");
    routes.set(`${prefix}/v1/chat/completions`, (e) => take(e));
    const openai = new OpenAI({ apiKey: "k", baseURL: `${base}${prefix}/v1`, fetch: doFetch, maxRetries: 0 });
    const streaming = openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "Hi" }], stream: true });
    const { res } = await exchange;
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null }] })}\n\n`,
    );
    const stream = await streaming;
    const got: string[] = [];
    for await (const c of stream) {
      got.push(c.choices[0]?.delta.content ?? "");
      stream.controller.abort();
    }
    expect(got).toEqual(["hi"]);
  });

  both("body accessed, then text() on a cut connection: the cause is the socket error itself", async (doFetch) => {
    const { url, exchange } = hold("cut-cause");
    const pending = doFetch(url);
    const { res } = await exchange;
    res.writeHead(200, { "content-type": "text/plain" });
    res.write("part");
    const response = await pending;
    void response.body;
    const reading = response.text();
    res.socket!.destroy();
    const error = await rejectionOf(reading);
    expect((error as Error).message).toBe("terminated");
    expect((error as Error).cause).toMatchObject({ code: "UND_ERR_SOCKET" });
  });

  both("reading the body a second time is 'Body is unusable', not 'terminated' (a cut connection)", async (doFetch) => {
    const url = route(({ res }) => sendJson(res, 200, { once: true }));
    const response = await doFetch(url);
    expect(await response.json()).toEqual({ once: true });
    const error = await rejectionOf(response.text());
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).not.toBe("terminated");
    expect((error as Error).message).toMatch(/unusable/i);
  });

  both("text() on a locked body returns a rejected promise instead of throwing synchronously", async (doFetch) => {
    const url = route(({ res }) => res.end("locked"));
    const response = await doFetch(url);
    response.body!.getReader();
    let result: unknown;
    try {
      result = response.text();
    } catch (error) {
      result = error;
    }
    expect(result).toBeInstanceOf(Promise);
    expect(await rejectionOf(result as Promise<unknown>)).toBeInstanceOf(TypeError);
  });

  both("a FormData body is sent as multipart/form-data (the SDKs' file uploads)", async (doFetch) => {
    const seen: Array<[string | undefined, string]> = [];
    const url = route(({ req, res, body }) => {
      seen.push([req.headers["content-type"], body]);
      res.end("ok");
    });
    const form = new FormData();
    form.append("purpose", "fine-tune");
    form.append("file", new Blob(["line one\n"], { type: "text/plain" }), "data.jsonl");
    const response = await doFetch(url, { method: "POST", body: form });
    expect(await response.text()).toBe("ok");
    expect(seen).toHaveLength(1);
    expect(seen[0]![0]).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]![1]).toContain('name="purpose"');
    expect(seen[0]![1]).toContain("line one");
  });

  both("a URLSearchParams body is sent form-encoded", async (doFetch) => {
    const seen: Array<[string | undefined, string]> = [];
    const url = route(({ req, res, body }) => {
      seen.push([req.headers["content-type"], body]);
      res.end("ok");
    });
    const response = await doFetch(url, { method: "POST", body: new URLSearchParams({ grant_type: "client_credentials", scope: "a b" }) });
    expect(await response.text()).toBe("ok");
    expect(seen).toEqual([["application/x-www-form-urlencoded;charset=UTF-8", "grant_type=client_credentials&scope=a+b"]]);
  });
});

// ---------------------------------------------------------------------------------------------
// Event streams: delivered through `body` byte-identically however the socket cut them, and
// decoded by both SDKs (whose own splitters the adapters no longer use, but callers may).

describe("fastFetch: event streams", () => {
  const sse = { "content-type": "text/event-stream" };
  const concat = (chunks: Uint8Array[]) => Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.byteLength)));
  /** `n` SSE events, multi-byte characters included (a cut must never split one). */
  const events = (n: number, end = "\n\n") => Array.from({ length: n }, (_, i) => `data: ${JSON.stringify({ i, text: `tök ${i} ✓` })}${end}`);

  it("a large burst over many socket reads stays byte-identical", async () => {
    const sent = events(5000).join("");
    const url = route(({ res }) => {
      res.writeHead(200, sse);
      res.end(sent);
    });
    const chunks = await readAll((await fastFetch(url)).body!);
    expect(concat(chunks).equals(Buffer.from(sent))).toBe(true);
  });

  it("an event split across two writes reassembles: the first part arrives, then the rest", async () => {
    const { url, exchange } = hold("sse-split");
    const pending = fastFetch(url);
    const { res } = await exchange;
    const first = 'data: {"n":1}\n\ndata: {"n":2,"half":"ab';
    const rest = 'cd"}\n\ndata: {"n":3}\n\n';
    res.writeHead(200, sse);
    res.write(first);
    const reader = (await pending).body!.getReader();
    const chunks: Uint8Array[] = [];
    // Synchronised on what the client got: read until the first part is in.
    while (concat(chunks).length < Buffer.byteLength(first)) {
      const { done, value } = await reader.read();
      expect(done).toBe(false);
      chunks.push(value!);
    }
    expect(concat(chunks).toString("utf8")).toBe(first);
    res.end(rest);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    const all = concat(chunks).toString("utf8");
    expect(all).toBe(first + rest);
    expect(all.split("\n\n").filter((e) => e !== "")).toEqual(['data: {"n":1}', 'data: {"n":2,"half":"abcd"}', 'data: {"n":3}']);
  });

  it("a \\r\\n\\r\\n-delimited stream is delivered byte-identically", async () => {
    const sent = events(30, "\r\n\r\n").join("") + "event: ping\r\ndata: x\r\n\r\n";
    const url = route(({ res }) => {
      res.writeHead(200, sse);
      res.end(sent);
    });
    const chunks = await readAll((await fastFetch(url)).body!);
    expect(concat(chunks).equals(Buffer.from(sent))).toBe(true);
  });

  it("an application/json body read with json() after touching body is unchanged", async () => {
    const sent = `{\n\n"a": "b"\n\n}`;
    const url = route(({ res }) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(sent);
    });
    const response = await fastFetch(url);
    void response.body;
    expect(await response.json()).toEqual({ a: "b" });
  });

  describe("through the openai SDK", () => {
    const chunk = (content: string | null, finish: string | null = null) => ({
      id: "chatcmpl-sse",
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model: "gpt-test",
      choices: [{ index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finish }],
    });

    function client(handler: Handler): OpenAI {
      const prefix = fresh("openai-sse");
      routes.set(`${prefix}/v1/chat/completions`, handler);
      return new OpenAI({ apiKey: "k", baseURL: `${base}${prefix}/v1`, fetch: fastFetch, maxRetries: 0 });
    }

    const ask = { model: "gpt-test", messages: [{ role: "user" as const, content: "Hi" }], stream: true as const };

    it("a 300-chunk stream written in one go yields all 300 chunks in order", async () => {
      const sent = Array.from({ length: 300 }, (_, i) => chunk(`t${i} ö `));
      const openai = client(({ res }) => {
        res.writeHead(200, sse);
        res.end(sent.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + `data: ${JSON.stringify(chunk(null, "stop"))}\n\ndata: [DONE]\n\n`);
      });
      const stream = await openai.chat.completions.create(ask);
      const got: string[] = [];
      let finish: string | null | undefined;
      for await (const c of stream) {
        if (c.choices[0]?.finish_reason) finish = c.choices[0].finish_reason;
        else got.push(c.choices[0]?.delta.content ?? "<none>");
      }
      expect(got).toEqual(sent.map((_, i) => `t${i} ö `));
      expect(finish).toBe("stop");
    });

    it.each([
      ["inside an event's JSON", (second: string) => second.indexOf("spl") + 3],
      ["between the two newlines of an event end", (second: string) => second.length - 1],
    ])("an event split %s across two writes still parses", async (_where, cutIn) => {
      const events = [chunk("first"), chunk("split"), chunk("next")].map((c) => `data: ${JSON.stringify(c)}\n\n`);
      const body = events.join("") + "data: [DONE]\n\n";
      const at = events[0]!.length + cutIn(events[1]!);
      let take!: (exchange: Exchange) => void;
      const exchange = new Promise<Exchange>((resolve) => (take = resolve));
      const openai = client((e) => take(e));
      const streaming = openai.chat.completions.create(ask);
      const { res } = await exchange;
      res.writeHead(200, sse);
      res.write(body.slice(0, at));
      const iterator = (await streaming)[Symbol.asyncIterator]();
      // The first event is whole in the first write: once the SDK yields it, the client has
      // that write; only then does the rest of the split event go out.
      const first = await iterator.next();
      expect(first.done ? undefined : first.value.choices[0]?.delta.content).toBe("first");
      res.end(body.slice(at));
      const got: string[] = [];
      for (let step = await iterator.next(); !step.done; step = await iterator.next()) got.push(step.value.choices[0]?.delta.content ?? "");
      expect(got).toEqual(["split", "next"]);
    });

    it("a \\r\\n\\r\\n-delimited stream yields every chunk", async () => {
      const sent = Array.from({ length: 40 }, (_, i) => chunk(`r${i}`));
      const openai = client(({ res }) => {
        res.writeHead(200, sse);
        res.end(sent.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("") + "data: [DONE]\r\n\r\n");
      });
      const got: string[] = [];
      for await (const c of await openai.chat.completions.create(ask)) got.push(c.choices[0]?.delta.content ?? "");
      expect(got).toEqual(sent.map((_, i) => `r${i}`));
    });
  });

  it("through the @anthropic-ai/sdk SDK: 200 events written in one go are yielded in order", async () => {
    const deltas = Array.from({ length: 200 }, (_, i) => ({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: `a${i} ` } }));
    const all = [
      { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-test", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ...deltas,
      { type: "content_block_stop", index: 0 },
      { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 200 } },
      { type: "message_stop" },
    ];
    const prefix = fresh("anthropic-sse");
    routes.set(`${prefix}/v1/messages`, ({ res }) => {
      res.writeHead(200, sse);
      res.end(all.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join(""));
    });
    const anthropic = new Anthropic({ apiKey: "ak", baseURL: `${base}${prefix}`, fetch: fastFetch, maxRetries: 0 });
    const got: unknown[] = [];
    for await (const event of await anthropic.messages.create({ model: "claude-test", max_tokens: 16, messages: [{ role: "user", content: "Hi" }], stream: true })) got.push(event);
    expect(got).toEqual(all);
  });
});

// ---------------------------------------------------------------------------------------------
// Redirects: fetch follows them unless told not to (`redirect: "manual"`, which the MCP SDK uses
// to follow them within the origin only, or "error"). fastFetch does what fetch does.

describe.each(implementations)("fetch contract, redirects: %s", (_name, doFetch) => {
  let other: { server: Server; base: string };
  const otherRoutes = new Map<string, Handler>();
  beforeAll(async () => {
    other = await listen((path) => otherRoutes.get(path));
  });
  afterAll(async () => {
    await shut(other.server);
  });

  const redirecting = (status: number, location: string): Handler => ({ res }) => {
    res.writeHead(status, { location, "content-type": "text/plain" });
    res.end("moved");
  };
  /** A route that records what it received and answers JSON. */
  function final(seen: Exchange[], on: "here" | "other" = "here"): string {
    const handler: Handler = (exchange) => {
      seen.push(exchange);
      sendJson(exchange.res, 200, { at: "final" });
    };
    if (on === "here") return route(handler, "final");
    const path = fresh("other-final");
    otherRoutes.set(path, handler);
    return other.base + path;
  }
  const post = { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer t", "x-api-key": "k" }, body: '{"q":1}' };

  it.each([307, 308])("%i: the POST is sent again, body and headers, to the Location; the response says where it ended", async (status) => {
    const seen: Exchange[] = [];
    const target = final(seen);
    const response = await doFetch(route(redirecting(status, new URL(target).pathname)), post);
    expect(response.status).toBe(200);
    expect(response.redirected).toBe(true);
    expect(response.url).toBe(target);
    expect(await response.json()).toEqual({ at: "final" });
    expect(seen.map(({ req, body }) => [req.method, body, req.headers["content-type"], req.headers.authorization])).toEqual([["POST", '{"q":1}', "application/json", "Bearer t"]]);
  });

  it.each([301, 302, 303])("%i: a POST becomes a GET without its body and the headers that described it", async (status) => {
    const seen: Exchange[] = [];
    const response = await doFetch(route(redirecting(status, final(seen))), post);
    expect(response.status).toBe(200);
    expect(seen.map(({ req, body }) => [req.method, body, req.headers["content-type"], req.headers["x-api-key"]])).toEqual([["GET", "", undefined, "k"]]);
  });

  it("to another origin: the authorization stays behind, other headers go on", async () => {
    const seen: Exchange[] = [];
    const response = await doFetch(route(redirecting(307, final(seen, "other"))), post);
    expect(response.status).toBe(200);
    expect(seen.map(({ req }) => [req.headers.authorization, req.headers["x-api-key"]])).toEqual([[undefined, "k"]]);
  });

  it('redirect: "manual" hands the redirect back, Location and all', async () => {
    const seen: Exchange[] = [];
    const target = final(seen);
    const response = await doFetch(route(redirecting(307, target)), { ...post, redirect: "manual" });
    expect(response.status).toBe(307);
    expect(response.redirected).toBe(false);
    expect(response.headers.get("location")).toBe(target);
    await response.text();
    expect(seen).toHaveLength(0);
  });

  it('redirect: "error" fails the call: TypeError "fetch failed"', async () => {
    const seen: Exchange[] = [];
    const error = await rejectionOf(doFetch(route(redirecting(308, final(seen))), { ...post, redirect: "error" }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("fetch failed");
    expect(seen).toHaveLength(0);
  });

  it("a redirect loop fails the call after 20 redirects: TypeError \"fetch failed\"", async () => {
    let hits = 0;
    const path = fresh("loop");
    routes.set(path, (exchange) => {
      hits += 1;
      redirecting(307, path)(exchange);
    });
    const error = await rejectionOf(doFetch(base + path, post));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe("fetch failed");
    expect(hits).toBe(21);
  });

  it("a 3xx without a Location is the response itself", async () => {
    const response = await doFetch(route(({ res }) => res.writeHead(307, { "content-type": "text/plain" }).end("stay")), post);
    expect(response.status).toBe(307);
    expect(response.redirected).toBe(false);
    expect(await response.text()).toBe("stay");
  });

  it("the response's URL is where it ended, without the request's fragment", async () => {
    const seen: Exchange[] = [];
    const target = final(seen);
    const response = await doFetch(`${route(redirecting(308, target))}#part`, post);
    expect(response.url).toBe(target);
    await response.text();
  });

  it("a Location with credentials fails the call", async () => {
    const seen: Exchange[] = [];
    const live = new URL(final(seen));
    live.username = "user";
    live.password = "secret";
    const error = await rejectionOf(doFetch(route(redirecting(307, live.href)), post));
    expect(error).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(0);
  });

  it("a Blob body is sent again by a 307", async () => {
    const seen: Exchange[] = [];
    const response = await doFetch(route(redirecting(307, final(seen))), { method: "POST", body: new Blob(['{"blob":1}']) });
    expect(response.status).toBe(200);
    expect(seen.map(({ body }) => body)).toEqual(['{"blob":1}']);
  });
});
