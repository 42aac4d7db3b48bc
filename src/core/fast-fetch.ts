/**
 * The `fetch` the provider SDKs and the MCP SDK's HTTP transports use: undici's `request` API
 * behind the fetch signature. Node's global fetch implements the whole WHATWG machinery on every
 * call; for a gateway that makes an upstream call per request that is most of its per-request
 * CPU (measured in bench/: the openai client's call cost halves, a forwarded MCP tools/call
 * costs a quarter less). Keep-alive connections are pooled per upstream origin; the timeouts are
 * undici's defaults, the same as Node's fetch.
 */
import { getMaxListeners, setMaxListeners } from "node:events";
import { Readable } from "node:stream";
import { Agent, errors, type Dispatcher } from "undici";
import { nativeSignal } from "./abort-controller.ts";
import { followRedirects, isRedirect, RedirectFailure, type Outgoing } from "./redirects.ts";

type UndiciBody = Dispatcher.RequestOptions["body"];

function requestUrl(input: string | URL | Request): string {
  if (typeof input === "string") return input;
  return input instanceof URL ? input.href : input.url;
}

/** Where a request goes, as a dispatcher takes it: the URL's origin and its path with the query. */
export interface Target {
  origin: string;
  path: string;
}

/** Targets by URL: the gateway calls a few endpoints over and over (providers', MCP servers'). */
const targets = new Map<string, Target>();
const MAX_TARGETS = 256;

/**
 * The target of `url`, parsed once: undici's top-level `request(url)` parses the URL and copies
 * the options on every call (about 5 µs), where `dispatcher.request({ origin, path })` does not.
 */
export function targetOf(url: string): Target {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    // As undici's own parsing refuses it.
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new errors.InvalidArgumentError("Invalid URL protocol: the URL must start with `http:` or `https:`.");
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

function headerRecord(init: ConstructorParameters<typeof Headers>[0]): Record<string, string> {
  const out: Record<string, string> = {};
  // The SDKs pass a Headers already: no second copy of it.
  (init instanceof Headers ? init : new Headers(init)).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/** undici's raw response headers (a list value per repeated header) as web Headers. */
export function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
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
 * socket error as cause), so the SDKs' and adapters' error mapping sees what it knows. A `lazy`
 * one takes nothing from the socket until it is first read, so that its Node stream can be
 * claimed instead (`claimNodeBody`).
 */
function webBody(body: Readable, signal: AbortSignal | undefined, lazy = false): ReadableStream<Uint8Array> {
  // Set once the web side is closed, errored or cancelled: data the socket still delivers
  // after that is dropped, not enqueued on a closed controller.
  let done = false;
  let attached = false;
  let claimed = false;
  const attach = (controller: ReadableStreamDefaultController<Uint8Array>) => {
    attached = true;
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
      controller.error(failure(error, signal));
    });
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (!lazy) attach(controller);
      },
      pull(controller) {
        if (claimed) {
          controller.error(new TypeError("Body is unusable: its stream was read directly"));
          return;
        }
        if (!attached) attach(controller);
        body.resume();
      },
      cancel(reason) {
        done = true;
        body.destroy(reason instanceof Error ? reason : undefined);
      },
    },
    lazy ? { highWaterMark: 0 } : undefined,
  );
  if (lazy) {
    (stream as ReadableStream<Uint8Array> & { [NODE_BODY]?: NodeBody })[NODE_BODY] = {
      signal,
      claim: () => {
        if (attached || claimed || stream.locked) return undefined;
        claimed = true;
        return body;
      },
    };
  }
  return stream;
}

const NODE_BODY = Symbol("nodeBody");

interface NodeBody {
  signal: AbortSignal | undefined;
  /** The Node stream, once, if the web side was never read. */
  claim(): Readable | undefined;
}

/**
 * The Node stream under a body this fetch handed out lazily (`directEventStreams`), for a reader
 * that does without web streams; undefined when the body is not one, or was read already. Its
 * read failures still need `failure()` to look like fetch's.
 */
export function claimNodeBody(stream: unknown): { body: Readable; signal: AbortSignal | undefined } | undefined {
  const tagged = (stream as { [NODE_BODY]?: NodeBody } | null | undefined)?.[NODE_BODY];
  const body = tagged?.claim();
  return body ? { body, signal: tagged!.signal } : undefined;
}

/**
 * A failure while the body is read, as fetch reports it: the abort reason when the caller
 * aborted (the SDKs recognise an abort by it), else TypeError "terminated" with the socket
 * error as cause (the adapters' "cut off" mapping). JSON syntax errors stay what they are.
 */
export function failure(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof SyntaxError) return error;
  return new TypeError("terminated", { cause: error });
}

type UndiciResponseData = Dispatcher.ResponseData;

/**
 * The part of `Response` the provider SDKs read (status, ok, url, headers, body, json, text,
 * arrayBuffer, blob), over undici's response. A non-streamed answer is read straight from the
 * socket stream; the web `ReadableStream` is built only when `body` is asked for (streams,
 * cancellation). Building a full WHATWG Response per call was a fifth of the SDK call's CPU.
 */
class UndiciResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly type = "basic";
  readonly headers: Headers;
  #raw: UndiciResponseData["body"] | null;
  #web: ReadableStream<Uint8Array> | null | undefined;
  #used = false;
  #signal: AbortSignal | undefined;
  #lazyEventStream: boolean;

  constructor(
    response: UndiciResponseData,
    readonly url: string,
    empty: boolean,
    signal: AbortSignal | undefined,
    directEventStreams = false,
    readonly redirected = false,
  ) {
    this.#signal = signal;
    this.status = response.statusCode;
    this.statusText = response.statusText ?? "";
    this.ok = response.statusCode >= 200 && response.statusCode < 300;
    this.headers = responseHeaders(response.headers);
    this.#lazyEventStream = directEventStreams && isEventStream(this.headers.get("content-type"));
    this.#raw = empty ? null : response.body;
    if (empty) this.#web = null;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#web === undefined) this.#web = webBody(this.#raw!, this.#signal, this.#lazyEventStream);
    return this.#web;
  }

  get bodyUsed(): boolean {
    return this.#used || (this.#web?.locked ?? false);
  }

  /**
   * Reads the whole body once: through the web stream when one was handed out (it owns the
   * socket data, and fails the way fetch does already), else straight from undici's stream.
   */
  async #read<T>(how: "json" | "text" | "arrayBuffer", empty: T): Promise<T> {
    if (this.#used) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    if (this.#web !== undefined) return this.#web === null ? empty : ((await new Response(this.#web)[how]()) as T);
    if (!this.#raw) return empty;
    try {
      return (await this.#raw[how]()) as T;
    } catch (error) {
      throw failure(error, this.#signal);
    }
  }

  json(): Promise<unknown> {
    return this.#read<unknown>("json", undefined).then((value) => {
      if (value === undefined) throw new SyntaxError("Unexpected end of JSON input");
      return value;
    });
  }

  text(): Promise<string> {
    return this.#read("text", "");
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return this.#read("arrayBuffer", new ArrayBuffer(0));
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get("content-type") ?? "" });
  }
}

/**
 * undici adds an abort listener per request in flight to the caller's signal; the MCP
 * transports share one signal across all their calls. Node's fetch raises the limit the same
 * way, so many concurrent calls do not print a MaxListenersExceededWarning.
 */
function allowManyListeners(signal: AbortSignal | null | undefined): void {
  if (signal && getMaxListeners(signal) < 1500) setMaxListeners(1500, signal);
}

function isEventStream(contentType: string | null): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "text/event-stream";
}

export interface FastFetchOptions {
  /** How long an idle keep-alive connection is kept (ms); undici's default is 4 s, as Node's fetch. */
  keepAliveTimeout?: number;
  keepAliveMaxTimeout?: number;
  /**
   * An event stream's `body` is lazy, and its Node stream can be claimed (`claimNodeBody`) by a
   * reader that parses it without web streams (the MCP client transport: lean-sse.ts).
   */
  directEventStreams?: boolean;
}

/** A fetch over its own connection pool. */
export function createFastFetch(options: FastFetchOptions = {}): typeof fetch {
  const { directEventStreams = false, ...pool } = options;
  return fetchOver(new Agent(pool), directEventStreams);
}

/** A fetch over the given connection pool. */
function fetchOver(dispatcher: Agent, directEventStreams = false): typeof fetch {
  return (input, init) => fastRequest(dispatcher, input, init, directEventStreams);
}

async function fastRequest(dispatcher: Agent, input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1], directEventStreams: boolean): Promise<Response> {
  // What undici, the platform fetch and the SDKs above do with it is theirs: Node's own signal (./abort-controller.ts).
  const signal = nativeSignal(init?.signal ?? undefined);
  // Not what the SDKs send for chat calls (a Request, or an upload body undici would not
  // encode the way fetch does): the platform fetch, exactly.
  if ((input instanceof Request && init === undefined) || init?.body instanceof FormData || init?.body instanceof URLSearchParams) {
    return fetch(input, init && signal !== init.signal ? { ...init, signal } : init);
  }
  allowManyListeners(signal);
  const body = (init?.body ?? undefined) as UndiciBody;
  const first: Outgoing<UndiciBody> = { url: requestUrl(input), method: init?.method ?? "GET", headers: headerRecord(init?.headers), body };
  let sent = first;
  let response = await send(dispatcher, sent, signal);
  // As fetch (./redirects.ts), unless the caller asks for the redirect itself (the MCP SDK does, to follow it within the origin only).
  if (isRedirect(response.statusCode) && init?.redirect !== "manual") ({ sent, response } = await redirected(dispatcher, sent, response, init?.redirect, signal));
  const empty = response.statusCode === 204 || response.statusCode === 304 || sent.method === "HEAD";
  if (empty) response.body.resume();
  // The SDKs read only the members UndiciResponse has (see its comment).
  return new UndiciResponse(response, withoutFragment(sent.url), empty, signal, directEventStreams, sent !== first) as unknown as Response;
}

function send(dispatcher: Agent, sent: Outgoing<UndiciBody>, signal: AbortSignal | undefined): Promise<UndiciResponseData> {
  const { origin, path } = targetOf(sent.url);
  return dispatcher.request({ origin, path, method: sent.method as "GET", headers: sent.headers, body: sent.body, signal });
}

/** A body fetch can send again to a redirect's target (a stream it cannot). */
function isReplayable(body: UndiciBody): boolean {
  return body === undefined || body === null || typeof body === "string" || body instanceof ArrayBuffer || ArrayBuffer.isView(body) || body instanceof Blob;
}

/** A response's URL, as fetch gives it: without the request's fragment. */
function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/**
 * The redirects followed as fetch follows them (`redirect: "error"`: any redirect status fails);
 * each redirect's own connection is let go, as fetch lets it go. The rules' failures are fetch's:
 * TypeError "fetch failed", with the reason as its cause.
 */
async function redirected(
  dispatcher: Agent,
  sent: Outgoing<UndiciBody>,
  response: UndiciResponseData,
  mode: RequestInit["redirect"],
  signal: AbortSignal | undefined,
): Promise<{ sent: Outgoing<UndiciBody>; response: UndiciResponseData }> {
  try {
    if (mode === "error") {
      letGo(response.body);
      throw new RedirectFailure("unexpected redirect");
    }
    // Whether the body can be sent again is asked only of a request that redirects.
    const start: Outgoing<UndiciBody> = { ...sent, replayable: isReplayable(sent.body) };
    const chain = await followRedirects(start, response, {
      status: (r) => r.statusCode,
      location: (r) => firstHeader(r.headers.location),
      send: (next) => send(dispatcher, next, signal),
      discard: (r) => letGo(r.body),
    });
    // Not followed (a 3xx without a Location): the request as it was, so the response is not "redirected".
    return { sent: chain.sent === start ? sent : chain.sent, response: chain.answer };
  } catch (error) {
    throw error instanceof RedirectFailure ? new TypeError("fetch failed", { cause: error }) : error;
  }
}

/** A body nobody will read: its connection closed, and the abort error that destroying it emits swallowed. */
function letGo(body: UndiciResponseData["body"]): void {
  body.on("error", () => undefined);
  body.destroy();
}

/** A header's first value, as undici gives a repeated one (a list). */
export function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The connections to providers, shared by the adapters' transport (src/adapters/upstream-http.ts)
 * and fastFetch. Idle connections are kept 30 s (providers' servers keep them at least that long,
 * and say so when they do not; a reuse that loses the race is a retryable connection error for
 * the gateway).
 */
export const providerDispatcher = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });

/** The provider SDKs' fetch (the calls that still go through them: count_tokens, embeddings, Gemini's). */
export const fastFetch: typeof fetch = fetchOver(providerDispatcher);
