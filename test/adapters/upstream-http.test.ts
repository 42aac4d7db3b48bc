/**
 * The providers' transport (UpstreamHttp) over undici's `dispatch` with its own handlers, against
 * the same transport over Node's fetch (AdapterOptions.fetch) as the reference: every way a call
 * ends must reach the SDK error mapping the same way on both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ServerResponse } from "node:http";
import { Agent } from "undici";
import { UpstreamHttp, type SdkErrors } from "../../src/adapters/upstream-http.ts";
import { startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../helpers/fake-upstream.ts";

type Handler = (req: RecordedRequest, res: ServerResponse) => void;
const routes = new Map<string, Handler>();
let upstream: FakeUpstream;
const dispatcher = new Agent();

beforeAll(async () => {
  upstream = await startFakeUpstream((req, res) => routes.get(req.path)?.(req, res));
});

afterAll(async () => {
  await dispatcher.close();
  await upstream.close();
});

/** SDK errors that say which way the call failed, with what the transport handed over. */
class Mapped extends Error {
  constructor(
    readonly kind: string,
    readonly detail: unknown,
  ) {
    super(kind);
  }
}
const errors: SdkErrors = {
  status: (status, json, text, headers) => new Mapped("status", { status, json, text, contentType: headers.get("content-type") }),
  // The cause differs (undici's SocketError here, fetch's TypeError "fetch failed" there), as it did
  // over undici's request(): the SDKs wrap either as their connection error.
  connection: (cause) => new Mapped("connection", cause instanceof Error),
  timeout: () => new Mapped("timeout", undefined),
  aborted: () => new Mapped("aborted", undefined),
};

const transports = {
  undici: () => new UpstreamHttp(errors, 300, undefined, dispatcher),
  fetch: () => new UpstreamHttp(errors, 300, globalThis.fetch),
};

/** What a call ended with, comparable across transports. */
async function outcome(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await call() };
  } catch (error) {
    if (error instanceof Mapped) return { mapped: error.kind, detail: error.detail };
    if (error instanceof Error) return { thrown: error.name, message: error.message };
    return { thrown: error };
  }
}

let counter = 0;
function route(handler: Handler): string {
  const path = `/r${++counter}`;
  routes.set(path, handler);
  return `${upstream.url}${path}`;
}

const cases: Record<string, Handler> = {
  "a JSON answer": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'),
  "a text answer": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("plain"),
  "a JSON answer with parameters": (_req, res) => res.writeHead(200, { "content-type": " Application/JSON ; charset=utf-8" }).end('{"ok":1}'),
  "a +json answer": (_req, res) => res.writeHead(200, { "content-type": "application/problem+json" }).end('{"ok":2}'),
  "an answer without a content type": (_req, res) => res.writeHead(200).end('{"ok":3}'),
  "204": (_req, res) => res.writeHead(204).end(),
  "JSON that does not parse": (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":'),
  "a 2xx body cut short": (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
    res.write('{"ok":');
    setImmediate(() => res.socket!.destroy());
  },
  "a 429 with a JSON error": (_req, res) => res.writeHead(429, { "content-type": "application/json" }).end('{"error":{"message":"slow down"}}'),
  "a 500 with a text body": (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("upstream broke"),
  "a 502 whose body is cut": (_req, res) => {
    res.writeHead(502, { "content-type": "application/json", "content-length": "100" });
    res.write('{"error":');
    setImmediate(() => res.socket!.destroy());
  },
  "no answer within the timeout": () => undefined,
  "the connection closed before an answer": (_req, res) => res.socket!.destroy(),
};

describe("UpstreamHttp: each way a call ends, as over fetch", () => {
  for (const [name, handler] of Object.entries(cases)) {
    it(`json(): ${name}`, async () => {
      const seen: Record<string, unknown> = {};
      for (const [transport, make] of Object.entries(transports)) {
        const url = route(handler);
        seen[transport] = await outcome(() => make().json({ url, headers: { "content-type": "application/json" }, body: "{}" }));
      }
      expect(seen.undici).toEqual(seen.fetch);
    });

    it(`stream(): ${name}`, async () => {
      const seen: Record<string, unknown> = {};
      for (const [transport, make] of Object.entries(transports)) {
        const url = route(handler);
        seen[transport] = await outcome(async () => {
          const open = await make().stream({ url, headers: { "content-type": "application/json" }, body: "{}" });
          return { contentType: open.headers.get("content-type") };
        });
      }
      expect(seen.undici).toEqual(seen.fetch);
    });
  }

  it("a caller's abort before the answer is the SDKs' abort error on both", async () => {
    for (const make of Object.values(transports)) {
      const controller = new AbortController();
      const url = route(() => controller.abort(new Error("client gone")));
      expect(await outcome(() => make().json({ url, headers: {}, body: "{}", signal: controller.signal }))).toEqual({ mapped: "aborted", detail: undefined });
    }
  });

  it("a caller's abort while the body comes: not the SDKs' abort error (the head was in), a failure of the body", async () => {
    for (const make of Object.values(transports)) {
      const controller = new AbortController();
      const url = route((_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"partial":');
      });
      // Aborted once the client has the head (both undici and Node's fetch publish it).
      const onHeaders = () => setImmediate(() => controller.abort(new Error("client gone")));
      subscribe("undici:request:headers", onHeaders);
      try {
        const seen = await outcome(() => make().json({ url, headers: {}, body: "{}", signal: controller.signal }));
        // undici reports the abort's reason; fetch its own AbortError: either is an abort to the SDKs' readers.
        expect(seen).toMatchObject({ thrown: expect.stringMatching(/^(Error|AbortError)$/) });
      } finally {
        unsubscribe("undici:request:headers", onHeaders);
      }
    }
  });
});

/**
 * Redirects: the SDKs sent with fetch, which follows them; the transport must too, the same way
 * (src/core/redirects.ts). Each case is a chain of routes; what the last hop received (method,
 * body, headers) and how the call ended must be the same over undici as over fetch.
 */
describe("UpstreamHttp: redirects, as fetch follows them", () => {
  // A timeout no chain here comes near (a 21-hop loop on a loaded machine included); the test of
  // the chain's deadline uses the 300 ms transports above.
  const roomy = {
    undici: () => new UpstreamHttp(errors, 30_000, undefined, dispatcher),
    fetch: () => new UpstreamHttp(errors, 30_000, globalThis.fetch),
  };
  let other: FakeUpstream;
  const otherRoutes = new Map<string, Handler>();
  beforeAll(async () => {
    other = await startFakeUpstream((req, res) => otherRoutes.get(req.path)?.(req, res));
  });
  afterAll(async () => {
    await other.close();
  });

  /** What the final hop saw. */
  interface Hop {
    method: string;
    body: string;
    contentType: string | undefined;
    authorization: string | undefined;
    apiKey: string | undefined;
  }
  const answering = (seen: Hop[]): Handler => (req, res) => {
    seen.push({ method: req.method, body: req.rawBody, contentType: req.headers["content-type"], authorization: req.headers.authorization, apiKey: req.headers["x-api-key"] as string | undefined });
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":"final"}');
  };
  const redirecting = (status: number, location: string): Handler => (_req, res) => res.writeHead(status, { location }).end("moved");
  let otherCounter = 0;
  function otherRoute(handler: Handler): string {
    const path = `/o${++otherCounter}`;
    otherRoutes.set(path, handler);
    return `${other.url}${path}`;
  }

  /** Each chain: given the final hop's handler, the URL the call starts at. */
  const chains: Record<string, (final: Handler) => string> = {
    "307, a relative Location": (final) => route(redirecting(307, new URL(route(final)).pathname)),
    "308, an absolute Location": (final) => route(redirecting(308, route(final))),
    "301 (a POST becomes a GET without its body)": (final) => route(redirecting(301, route(final))),
    "302 (the same)": (final) => route(redirecting(302, route(final))),
    "303 (the same)": (final) => route(redirecting(303, route(final))),
    "307 then 308": (final) => route(redirecting(307, route(redirecting(308, route(final))))),
    "307 to another origin (its credentials stay behind)": (final) => route(redirecting(307, otherRoute(final))),
  };

  for (const [name, chain] of Object.entries(chains)) {
    for (const call of ["json", "stream"] as const) {
      it(`${call}(): ${name}`, async () => {
        const seen: Record<string, unknown> = {};
        for (const [transport, make] of Object.entries(roomy)) {
          const hops: Hop[] = [];
          const url = chain(answering(hops));
          const post = { url, headers: { "content-type": "application/json", authorization: "Bearer sk-test", "x-api-key": "key-test" }, body: '{"q":1}' };
          const ended = await outcome(async () => (call === "json" ? make().json(post) : { contentType: (await make().stream(post)).headers.get("content-type") }));
          seen[transport] = { ended, hops };
        }
        expect(seen.undici).toEqual(seen.fetch);
        // Followed, not handed back.
        expect((seen.undici as { hops: Hop[] }).hops).toHaveLength(1);
      });
    }
  }

  it("the body and the credentials: kept by 307 and 308 on the same origin, the body dropped by 301-303, the authorization by another origin", async () => {
    const hops: Hop[] = [];
    const make = roomy.undici;
    const post = (url: string) => ({ url, headers: { "content-type": "application/json", authorization: "Bearer sk-test", "x-api-key": "key-test" }, body: '{"q":1}' });
    await make().json(post(route(redirecting(307, route(answering(hops))))));
    await make().json(post(route(redirecting(303, route(answering(hops))))));
    await make().json(post(route(redirecting(308, otherRoute(answering(hops))))));
    expect(hops).toEqual([
      { method: "POST", body: '{"q":1}', contentType: "application/json", authorization: "Bearer sk-test", apiKey: "key-test" },
      { method: "GET", body: "", contentType: undefined, authorization: "Bearer sk-test", apiKey: "key-test" },
      { method: "POST", body: '{"q":1}', contentType: "application/json", authorization: undefined, apiKey: "key-test" },
    ]);
  });

  const failing: Record<string, () => string> = {
    "a redirect loop (fetch gives up after 20)": () => {
      const path = `/loop${++counter}`;
      routes.set(path, redirecting(307, path));
      return `${upstream.url}${path}`;
    },
    "a Location that is not http(s)": () => route(redirecting(307, "ftp://127.0.0.1/file")),
    "a Location that is not a URL": () => route(redirecting(307, "http://[")),
    "a Location with credentials": () => {
      const live = new URL(route(answering([])));
      live.username = "user";
      live.password = "secret";
      return route(redirecting(307, live.href));
    },
    "a 307 without a Location (the answer itself)": () => route((_req, res) => res.writeHead(307, { "content-type": "text/plain" }).end("nowhere to go")),
  };
  for (const [name, start] of Object.entries(failing)) {
    for (const call of ["json", "stream"] as const) {
      it(`${call}(): ${name}, as over fetch`, async () => {
        const seen: Record<string, unknown> = {};
        for (const [transport, make] of Object.entries(roomy)) {
          const post = { url: start(), headers: { "content-type": "application/json" }, body: "{}" };
          seen[transport] = await outcome(async () => (call === "json" ? make().json(post) : { contentType: (await make().stream(post)).headers.get("content-type") }));
        }
        expect(seen.undici).toEqual(seen.fetch);
        expect(seen.undici).toMatchObject({ mapped: expect.stringMatching(/^(connection|status)$/) });
      });
    }
  }

  it("a loop is given up after the first request and 20 redirects, on both", async () => {
    for (const make of Object.values(roomy)) {
      let hits = 0;
      const path = `/counted-loop${++counter}`;
      routes.set(path, (req, res) => {
        hits += 1;
        redirecting(308, path)(req, res);
      });
      expect(await outcome(() => make().json({ url: `${upstream.url}${path}`, headers: {}, body: "{}" }))).toEqual({ mapped: "connection", detail: true });
      expect(hits).toBe(21);
    }
  });

  it("the caller's abort while a redirect's target is answering is the SDKs' abort error, as over fetch", async () => {
    for (const call of ["json", "stream"] as const) {
      const seen: Record<string, unknown> = {};
      for (const [transport, make] of Object.entries(roomy)) {
        const controller = new AbortController();
        // The target aborts the call once the redirected request reaches it, and never answers.
        const target = route(() => controller.abort(new Error("client gone")));
        const post = { url: route(redirecting(307, target)), headers: { "content-type": "application/json" }, body: "{}", signal: controller.signal };
        seen[transport] = await outcome(async () => (call === "json" ? make().json(post) : make().stream(post)));
      }
      expect(seen.undici).toEqual({ mapped: "aborted", detail: undefined });
      expect(seen.undici).toEqual(seen.fetch);
    }
  });

  it("a raw UTF-8 Location is read as fetch reads it", async () => {
    const seen: Record<string, unknown> = {};
    for (const [transport, make] of Object.entries(roomy)) {
      const hops: Hop[] = [];
      const dir = `/utf${++counter}`;
      routes.set(`${dir}/caf%C3%A9`, answering(hops));
      // The header's bytes are the path's UTF-8, unencoded (a latin1 string writes them as they are).
      const location = Buffer.from(`${dir}/café`, "utf8").toString("latin1");
      const ended = await outcome(() => make().json({ url: route(redirecting(307, location)), headers: {}, body: "{}" }));
      seen[transport] = { ended, hops: hops.length };
    }
    expect(seen.undici).toEqual({ ended: { value: { ok: "final" } }, hops: 1 });
    expect(seen.undici).toEqual(seen.fetch);
  });

  it("a redirect whose body never ends is followed at once (its body is not waited for)", async () => {
    for (const call of ["json", "stream"] as const) {
      const hops: Hop[] = [];
      const target = route(answering(hops));
      const url = route((_req, res) => {
        res.writeHead(307, { location: target, "content-type": "text/plain" });
        res.write("moving…");
      });
      const post = { url, headers: { "content-type": "application/json" }, body: "{}" };
      const make = roomy.undici;
      const ended = await outcome(async () => (call === "json" ? make().json(post) : { contentType: (await make().stream(post)).headers.get("content-type") }));
      expect(ended).toEqual({ value: call === "json" ? { ok: "final" } : { contentType: "application/json" } });
      expect(hops).toHaveLength(1);
    }
  });

  it("a chain that fails lets the last redirect's connection go", async () => {
    for (const call of ["json", "stream"] as const) {
      let answered!: ServerResponse;
      const url = route((_req, res) => {
        answered = res;
        res.writeHead(307, { location: "ftp://127.0.0.1/file", "content-type": "text/plain" });
        res.write("moving…");
      });
      const post = { url, headers: { "content-type": "application/json" }, body: "{}" };
      const make = roomy.undici;
      const ended = await outcome(async () => (call === "json" ? make().json(post) : make().stream(post)));
      expect(ended).toEqual({ mapped: "connection", detail: true });
      // The server sees its answer's connection closed (it never ended the body).
      await new Promise<void>((resolve) => (answered.closed ? resolve() : answered.once("close", () => resolve())));
      expect(answered.writableFinished).toBe(false);
    }
  });

  it("the timeout bounds the whole chain, as the SDKs' one timer did", async () => {
    // 300 ms for the call (the transports above). The redirect comes after 350 ms: past the call's
    // deadline, whether or not undici's headers timer (whose ticks are half a second apart) fired
    // in the meantime; a timeout per hop would follow it and succeed.
    const seen: Record<string, unknown> = {};
    for (const [transport, make] of Object.entries(transports)) {
      const target = route(answering([]));
      const url = route((req, res) => setTimeout(() => redirecting(307, target)(req, res), 350));
      seen[transport] = await outcome(() => make().json({ url, headers: {}, body: "{}" }));
    }
    expect(seen.undici).toEqual({ mapped: "timeout", detail: undefined });
    expect(seen.undici).toEqual(seen.fetch);
  });
});
