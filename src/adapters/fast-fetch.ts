/**
 * The `fetch` the provider SDKs use: undici's `request` API behind the fetch signature. Node's
 * global fetch implements the whole WHATWG machinery on every call; for a gateway that makes
 * one upstream call per request that is most of its per-request CPU (measured in bench/: the
 * openai client's call cost halves). Keep-alive connections are pooled per upstream origin.
 */
import { Readable } from "node:stream";
import { Agent, request } from "undici";

const dispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });

type UndiciBody = Parameters<typeof request>[1] extends infer O ? (O extends { body?: infer B } ? B : never) : never;

function requestUrl(input: string | URL | Request): string {
  if (typeof input === "string") return input;
  return input instanceof URL ? input.href : input.url;
}

function headerRecord(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(key, item);
    else headers.set(key, value);
  }
  return headers;
}

/**
 * The body as a web stream that fails the way fetch's does (a TypeError "terminated" with the
 * socket error as cause), so the SDKs' and adapters' error mapping sees what it knows.
 */
function webBody(body: Readable): ReadableStream<Uint8Array> {
  // Set once the web side is closed, errored or cancelled: data the socket still delivers
  // after that is dropped, not enqueued on a closed controller.
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      body.on("data", (chunk: Buffer) => {
        if (done) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) body.pause();
      });
      body.once("end", () => {
        if (done) return;
        done = true;
        controller.close();
      });
      body.once("error", (error) => {
        if (done) return;
        done = true;
        controller.error(new TypeError("terminated", { cause: error }));
      });
    },
    pull() {
      body.resume();
    },
    cancel(reason) {
      done = true;
      body.destroy(reason instanceof Error ? reason : undefined);
    },
  });
}

export const fastFetch: typeof fetch = async (input, init) => {
  if (input instanceof Request && init === undefined) return fetch(input); // not what the SDKs send; keep it exact
  const response = await request(requestUrl(input), {
    method: (init?.method ?? "GET") as "GET",
    headers: headerRecord(init?.headers),
    body: (init?.body ?? undefined) as UndiciBody,
    signal: init?.signal ?? undefined,
    dispatcher,
  });
  const empty = response.statusCode === 204 || response.statusCode === 304 || init?.method === "HEAD";
  if (empty) response.body.resume();
  const body = empty ? null : webBody(response.body);
  return new Response(body, { status: response.statusCode, headers: responseHeaders(response.headers) });
};
