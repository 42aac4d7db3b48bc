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
