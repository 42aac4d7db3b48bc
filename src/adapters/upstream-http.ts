/**
 * The gateway's one HTTP transport to providers: a JSON POST sent with undici's `dispatch` over
 * the shared provider pool, answered with the parsed body (./whole-answer.ts), or with the open
 * body of a stream (./streamed-answer.ts); each read by a handler of the transport's own, without
 * undici's `request` and its Node Readable.
 *
 * The official SDKs still describe each wire: an adapter takes the URL and headers from its SDK
 * client once (./sdk-head.ts), and every failure becomes the SDK's own error class, decided the
 * way the SDK decides it (see SdkErrors), so the adapters' error mapping is the same as before.
 * What is skipped is the SDKs' per-request machinery — header merging, an AbortController and a
 * timer per call, WHATWG Headers and Response objects, logging hooks — which was about half the
 * gateway's CPU per pass-through request (docs/performance.md).
 */
import { errors as undiciErrors, type Dispatcher } from "undici";
import { failure, firstHeader, providerDispatcher, responseHeaders, targetOf } from "../core/fast-fetch.ts";
import { followRedirects, isRedirect, type Outgoing } from "../core/redirects.ts";
import { utf8Text } from "../core/utf8-decoder.ts";
import type { ByteSource } from "./sse-events.ts";
import { openStream, type StreamHead } from "./streamed-answer.ts";
import { BodyFailure, wholeAnswer, type WholeAnswer } from "./whole-answer.ts";

/** The SDK's error for each way a call fails (its classes, so the adapters map them as before). */
export interface SdkErrors {
  /** An answer that is not 2xx: `json` is the body parsed (if it parses), `text` the body when that is not truthy JSON. */
  status(status: number, json: object | undefined, text: string | undefined, headers: Headers): Error;
  /** The request could not be sent, or no answer came. */
  connection(cause: Error): Error;
  /** No answer's headers within the timeout. */
  timeout(): Error;
  /** The caller's signal aborted before the answer's headers came. */
  aborted(): Error;
}

export interface UpstreamPost {
  url: string;
  /** Lower-case names, complete (the transport adds none). */
  headers: Record<string, string>;
  body: string;
  signal?: AbortSignal | undefined;
}

/** A streamed answer that was 2xx: its body, and its headers (built when asked for). */
export interface OpenStream {
  readonly body: ByteSource | ReadableStream<Uint8Array>;
  readonly headers: Headers;
}

/** The SDKs parse an answer as JSON when its media type says JSON, else hand back its text. */
function isJson(contentType: string | null | undefined): boolean {
  if (contentType === undefined || contentType === null) return false;
  // Nearly every answer: no array and no substring made per call.
  if (contentType === "application/json") return true;
  const end = contentType.indexOf(";");
  const type = (end < 0 ? contentType : contentType.slice(0, end)).trim();
  return type.includes("application/json") || type.endsWith("+json");
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The call as the redirect rules take it: a POST of its JSON. */
function outgoing(post: UpstreamPost): Outgoing {
  return { url: post.url, method: "POST", headers: post.headers, body: post.body };
}

const location = (headers: { location?: string | string[] | undefined }) => firstHeader(headers.location);

/** What a failed read of an error answer's body leaves as its text: the failure's message (as the SDKs read it). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A body's bytes, all of them (an error answer's, read for its message). */
async function readAll(body: ByteSource): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for (let read = await body.read(); !read.done; read = await body.read()) chunks.push(read.value);
  return Buffer.concat(chunks);
}

/**
 * A stream opened by the transport's own handler: its body, and its headers made only when read.
 * A class, not an object literal with a getter: a getter made per call gives every object its own
 * hidden class, kept in old space, which held the whole call's objects until a full GC
 * (docs/performance.md).
 */
class OpenedStream implements OpenStream {
  readonly body: ByteSource;
  #head: StreamHead;
  #headers: Headers | undefined;

  constructor(head: StreamHead) {
    this.#head = head;
    this.body = head.body;
  }

  get headers(): Headers {
    return (this.#headers ??= responseHeaders(this.#head.headers));
  }
}

export class UpstreamHttp {
  /**
   * `timeoutMs` bounds the wait for an answer's headers, as the SDKs' timeout does (theirs ends
   * when the headers are in); a body that then stalls is the adapters' idle clock's business.
   * With `fetch` (AdapterOptions.fetch: tests, the trace-level wire log) calls go through it
   * instead, with a timer per call as the SDKs have.
   */
  constructor(
    private readonly errors: SdkErrors,
    private readonly timeoutMs: number,
    private readonly fetch?: typeof globalThis.fetch,
    private readonly dispatcher: Dispatcher = providerDispatcher,
  ) {}

  /** A whole answer: parsed JSON (the text when it is not JSON, null for a 204). */
  json(post: UpstreamPost): Promise<unknown> {
    return this.fetch ? this.jsonWithFetch(this.fetch, post) : this.wholeJson(post);
  }

  /** A streamed answer, open; a status that is not 2xx is thrown (its body read first). */
  stream(post: UpstreamPost): Promise<OpenStream> {
    return this.fetch ? this.streamWithFetch(this.fetch, post) : this.openStream(post);
  }

  /** The undici call's options: origin and path named, not spread in (a leading spread costs about 1 µs a property on Node 20: src/core/extend.ts). A call is a POST; a redirect may make its next hop a GET. */
  private options(hop: UpstreamPost | Outgoing, timeoutMs = this.timeoutMs): Dispatcher.DispatchOptions {
    const { origin, path } = targetOf(hop.url);
    const method = ((hop as Partial<Outgoing>).method ?? "POST") as Dispatcher.HttpMethod;
    return { origin, path, method, headers: hop.headers, body: hop.body ?? null, headersTimeout: timeoutMs };
  }

  /** What is left of the call's timeout after a redirect, for the next hop (one deadline over the chain, as the SDKs' timer). */
  private timeLeft(started: number): number {
    const left = this.timeoutMs - (performance.now() - started);
    if (left <= 0) throw new undiciErrors.HeadersTimeoutError();
    return left;
  }

  private async wholeJson(post: UpstreamPost): Promise<unknown> {
    let answer: WholeAnswer;
    const started = performance.now();
    try {
      answer = await wholeAnswer(this.dispatcher, this.options(post), post.signal);
      // Followed as fetch follows them (../core/redirects.ts); a status check on every other answer.
      if (isRedirect(answer.status)) answer = await this.followWhole(post, answer, started);
    } catch (error) {
      if (!(error instanceof BodyFailure)) throw this.sendError(error, post.signal);
      const cut = failure(error.cause, post.signal);
      if (error.status < 200 || error.status > 299) throw this.statusError(error.status, messageOf(cut), responseHeaders(error.headers));
      throw cut;
    }
    const { status, headers, body } = answer;
    if (status < 200 || status > 299) throw this.statusError(status, utf8Text(body), responseHeaders(headers));
    if (status === 204) return null;
    if (!isJson(firstHeader(headers["content-type"]))) return utf8Text(body);
    try {
      return JSON.parse(utf8Text(body)) as unknown;
    } catch (error) {
      throw failure(error, post.signal);
    }
  }

  /** The answer at the end of a redirect's chain (a redirect's body was never read: ./whole-answer.ts). */
  private async followWhole(post: UpstreamPost, answer: WholeAnswer, started: number): Promise<WholeAnswer> {
    const chain = await followRedirects(outgoing(post), answer, {
      status: (a) => a.status,
      location: (a) => location(a.headers),
      send: (next) => wholeAnswer(this.dispatcher, this.options(next, this.timeLeft(started)), post.signal),
      discard: () => undefined,
    });
    return chain.answer;
  }

  private async openStream(post: UpstreamPost): Promise<OpenStream> {
    let head: StreamHead;
    const started = performance.now();
    try {
      head = await this.openHop(post, post);
      if (isRedirect(head.status)) head = await this.followStream(post, head, started);
    } catch (error) {
      throw this.sendError(error, post.signal);
    }
    if (head.status >= 200 && head.status <= 299) return new OpenedStream(head);
    const text = await readAll(head.body).then(utf8Text, messageOf);
    throw this.statusError(head.status, text, responseHeaders(head.headers));
  }

  private openHop(post: UpstreamPost, hop: UpstreamPost | Outgoing, timeoutMs?: number): Promise<StreamHead> {
    return openStream(this.dispatcher, this.options(hop, timeoutMs), post.signal, (error) => failure(error, post.signal));
  }

  /** As followWhole, for a stream: each redirect's own body is let go unread (its connection closed). */
  private async followStream(post: UpstreamPost, head: StreamHead, started: number): Promise<StreamHead> {
    const chain = await followRedirects(outgoing(post), head, {
      status: (h) => h.status,
      location: (h) => location(h.headers),
      send: (next) => this.openHop(post, next, this.timeLeft(started)),
      discard: (h) => {
        h.body.cancel();
        h.body.release();
      },
    });
    return chain.answer;
  }

  private async jsonWithFetch(fetch: typeof globalThis.fetch, post: UpstreamPost): Promise<unknown> {
    const response = await this.fetched(fetch, post);
    if (response.status === 204) {
      void response.body?.cancel().catch(() => undefined);
      return null;
    }
    return isJson(response.headers.get("content-type")) ? response.json() : response.text();
  }

  private async streamWithFetch(fetch: typeof globalThis.fetch, post: UpstreamPost): Promise<OpenStream> {
    const response = await this.fetched(fetch, post);
    return { body: response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }), headers: response.headers };
  }

  /** A 2xx answer from the given fetch; a status that is not 2xx is thrown (its body read first). */
  private async fetched(fetch: typeof globalThis.fetch, post: UpstreamPost): Promise<Response> {
    let response: Response;
    try {
      response = await this.sendWithFetch(fetch, post);
    } catch (error) {
      throw this.sendError(error, post.signal);
    }
    if (response.status >= 200 && response.status <= 299) return response;
    throw this.statusError(response.status, await response.text().catch(messageOf), response.headers);
  }

  /**
   * As the SDKs send: their own abort controller, aborted after timeoutMs without headers, or by
   * the caller at any time (a stream's body too: the listener stays).
   */
  private async sendWithFetch(fetch: typeof globalThis.fetch, post: UpstreamPost): Promise<Response> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (post.signal?.aborted) abort();
    else post.signal?.addEventListener("abort", abort, { once: true });
    const timer = setTimeout(abort, this.timeoutMs);
    try {
      return await fetch(post.url, { method: "POST", headers: post.headers, body: post.body, signal: controller.signal });
    } finally {
      clearTimeout(timer);
    }
  }

  /** As the SDKs decide: the caller's abort first, then anything that reads as a timeout. */
  private sendError(error: unknown, signal: AbortSignal | undefined): Error {
    if (signal?.aborted) return this.errors.aborted();
    const cause = error instanceof Error ? error : new Error(String(error));
    const said = `${String(cause)}${"cause" in cause ? String(cause.cause) : ""}`;
    if (cause.name === "AbortError" || /timed? ?out/i.test(said)) return this.errors.timeout();
    return this.errors.connection(cause);
  }

  /** The SDKs' status error: the body's JSON when it parses, else its text as the message. */
  private statusError(status: number, text: string, headers: Headers): Error {
    const json = safeJson(text);
    return this.errors.status(status, json as object | undefined, json ? undefined : text, headers);
  }
}
