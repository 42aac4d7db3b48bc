/**
 * The gateway's one HTTP transport to providers: a JSON POST sent with undici's `request` over
 * the shared provider pool, answered with the parsed body, or with the open body of a stream.
 *
 * The official SDKs still describe each wire: an adapter takes the URL and headers from its SDK
 * client once (./sdk-head.ts), and every failure becomes the SDK's own error class, decided the
 * way the SDK decides it (see SdkErrors), so the adapters' error mapping is the same as before.
 * What is skipped is the SDKs' per-request machinery — header merging, an AbortController and a
 * timer per call, WHATWG Headers and Response objects, logging hooks — which was about half the
 * gateway's CPU per pass-through request (docs/performance.md).
 */
import type { Readable } from "node:stream";
import type { Dispatcher } from "undici";
import { failure, providerDispatcher, responseHeaders, targetOf } from "../core/fast-fetch.ts";
import type { ByteSource } from "./sse-events.ts";
import { BodyFailure, bodyText, wholeAnswer, type WholeAnswer } from "./whole-answer.ts";

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

/** An answer whose headers are in, over undici or over a given fetch. */
interface Answer {
  status: number;
  contentType: string | null | undefined;
  headers(): Headers;
  json(): Promise<unknown>;
  text(): Promise<string>;
  /** The body's rest is not wanted, but the connection is. */
  discard(): void;
  body(): ByteSource | ReadableStream<Uint8Array>;
}

/** The SDKs parse an answer as JSON when its media type says JSON, else hand back its text. */
function isJson(contentType: string | null | undefined): boolean {
  const type = contentType?.split(";")[0]?.trim();
  return type !== undefined && (type.includes("application/json") || type.endsWith("+json"));
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A Node body read chunk by chunk; read failures reported the way fetch reports them. */
function nodeSource(body: Readable, signal: AbortSignal | undefined): ByteSource {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array, unknown>;
  return {
    read: () => chunks.next().catch((error: unknown) => Promise.reject(failure(error, signal))),
    cancel: () => void body.destroy(),
    release: () => undefined,
  };
}

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** undici's answer; its read failures reported the way fetch reports them. */
function undiciAnswer(data: Dispatcher.ResponseData, signal: AbortSignal | undefined): Answer {
  const read = <T>(reading: Promise<T>) => reading.catch((error: unknown) => Promise.reject(failure(error, signal)));
  return {
    status: data.statusCode,
    contentType: firstValue(data.headers["content-type"]),
    headers: () => responseHeaders(data.headers),
    json: () => read(data.body.json()),
    text: () => read(data.body.text()),
    discard: () => void data.body.resume(),
    body: () => nodeSource(data.body, signal),
  };
}

/** A fetch Response (a given fetch: tests, the trace-level wire log), read as the SDKs read it. */
function fetchAnswer(response: Response): Answer {
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    headers: () => response.headers,
    json: () => response.json() as Promise<unknown>,
    text: () => response.text(),
    discard: () => void response.body?.cancel().catch(() => undefined),
    body: () => response.body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() }),
  };
}

/**
 * A streamed answer: its body, and its headers made only when read. A class, not an object
 * literal with a getter: a getter made per call gives every object its own hidden class, kept in
 * old space, which held the whole call's objects until a full GC (docs/performance.md).
 */
class StreamingAnswer implements OpenStream {
  readonly body: ByteSource | ReadableStream<Uint8Array>;
  #headers: Headers | undefined;

  constructor(private readonly answer: Answer) {
    this.body = answer.body();
  }

  get headers(): Headers {
    return (this.#headers ??= this.answer.headers());
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
  async json(post: UpstreamPost): Promise<unknown> {
    if (!this.fetch) return this.wholeJson(post);
    const answer = await this.send(post);
    if (answer.status < 200 || answer.status > 299) throw await this.statusError(answer);
    if (answer.status === 204) {
      answer.discard();
      return null;
    }
    return isJson(answer.contentType) ? answer.json() : answer.text();
  }

  /**
   * json() over undici: the body read whole by the transport's own handler (./whole-answer.ts),
   * the failures mapped as send() and the Answer's readers map them.
   */
  private async wholeJson(post: UpstreamPost): Promise<unknown> {
    let answer: WholeAnswer;
    try {
      const { origin, path } = targetOf(post.url);
      answer = await wholeAnswer(this.dispatcher, { origin, path, method: "POST", headers: post.headers, body: post.body, headersTimeout: this.timeoutMs }, post.signal);
    } catch (error) {
      if (!(error instanceof BodyFailure)) throw this.sendError(error, post.signal);
      const cut = failure(error.cause, post.signal);
      // As statusError() reads a failed body: its failure's message is the text.
      if (error.status < 200 || error.status > 299) throw this.errors.status(error.status, undefined, cut instanceof Error ? cut.message : String(cut), responseHeaders(error.headers));
      throw cut;
    }
    const { status, headers, body } = answer;
    if (status < 200 || status > 299) {
      const text = bodyText(body);
      const json = safeJson(text);
      throw this.errors.status(status, json as object | undefined, json ? undefined : text, responseHeaders(headers));
    }
    if (status === 204) return null;
    if (!isJson(firstValue(headers["content-type"]))) return bodyText(body);
    try {
      return JSON.parse(bodyText(body)) as unknown;
    } catch (error) {
      throw failure(error, post.signal);
    }
  }

  /** A streamed answer, open; a status that is not 2xx is thrown (its body read first). */
  async stream(post: UpstreamPost): Promise<OpenStream> {
    const answer = await this.send(post);
    if (answer.status < 200 || answer.status > 299) throw await this.statusError(answer);
    return new StreamingAnswer(answer);
  }

  private async send(post: UpstreamPost): Promise<Answer> {
    try {
      if (this.fetch) return fetchAnswer(await this.sendWithFetch(this.fetch, post));
      // origin and path named, not spread in: on Node 20 each property added after a leading
      // spread costs about 1 µs (src/core/extend.ts).
      const { origin, path } = targetOf(post.url);
      const data = await this.dispatcher.request({
        origin,
        path,
        method: "POST",
        headers: post.headers,
        body: post.body,
        signal: post.signal,
        headersTimeout: this.timeoutMs,
      });
      return undiciAnswer(data, post.signal);
    } catch (error) {
      throw this.sendError(error, post.signal);
    }
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
  private async statusError(answer: Answer): Promise<Error> {
    const text = await answer.text().catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
    const json = safeJson(text);
    return this.errors.status(answer.status, json as object | undefined, json ? undefined : text, answer.headers());
  }
}
