/**
 * A streamed answer written straight to Node's ServerResponse when the app runs on our Node
 * server (./listen.ts), instead of a web ReadableStream read by @hono/node-server: that stream
 * cost Node 20 about 13 µs per answer in `makeTransferable` alone, plus the encoding, a promise
 * per chunk read, and @hono/node-server's probe of the first two chunks before the headers,
 * which waits a timer turn (about 1 ms) when the second is not ready: a model's first token
 * reached the client that much later.
 *
 * The handler cannot write the head itself: middlewares set headers after it returns (the
 * request id, CORS, the key's rate limits) and read its status. So:
 * - `withDirectSse`, the fetch our Node server calls, offers the request a slot (in its env);
 * - the handler puts the stream's frames there and returns a body-less Response with the SSE
 *   headers and a private marker header (`directSseResponse`);
 * - once the whole middleware chain has made the final Response, the wrapper writes its status
 *   and headers (without the marker) and the frames, and tells @hono/node-server that the
 *   answer is already sent. A stream whose Response did not come out of the chain (an error
 *   replaced it) is cancelled there, like one whose client left.
 * Without the slot (`app.request()`, `app.fetch()` in process) the handler sends a web stream.
 *
 * The event streams of routes that ask (`directEventStreams`: `/mcp`, whose SDK transport answers
 * web ReadableStreams) are written here too, once the chain is done, by ./direct-web-stream.ts
 * (@hono/node-server would wait a timer turn before the head of each).
 */
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import type { Http2Bindings, HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import type { SseFrames } from "../shared/sse-frames.ts";
import { sseHeaders } from "../shared/sse-pump.ts";
import { pipeEventStream } from "./direct-web-stream.ts";
import { carryingIds, withIds } from "./request-id.ts";

/** Marks the handler's stream Response on its way through the middlewares; never sent. */
const MARKER = "x-mcp-gateway-direct-stream";
/** @hono/node-server's header for "the handler has written the answer itself" (X_ALREADY_SENT). */
const ALREADY_SENT = "x-hono-already-sent";
/** The request's slot in its env: null while offered, the frames once a handler took it. */
const SLOT = Symbol("direct SSE");
/** Set by a route whose answer may be another handler's event stream (`directEventStreams`). */
const EVENT_STREAMS = Symbol("direct event streams");

/** The Response the handler made for the frames in the slot. */
const OWN = Symbol("direct SSE response");

/** An HTTP/1 request's env from @hono/node-server, with this module's slot. */
interface NodeEnv {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
  [SLOT]?: SseFrames | null;
  [OWN]?: StreamHead;
  [EVENT_STREAMS]?: true;
}

/**
 * The stream's Response, which knows whether anything read its headers. While nothing has,
 * @hono/node-server's light Response still holds the plain object it was made with, and the
 * head is written from that object: reading them makes a web Headers object (each header
 * normalized), which the head would then have to be read back from (about 2.5% of a short
 * stream's CPU with the request id set on it: docs/performance.md).
 */
interface StreamHead extends Response {
  readonly plain: Record<string, string>;
  headersRead: boolean;
}

let StreamResponse: (new (plain: Record<string, string>) => StreamHead) | undefined;

/**
 * Made from the global Response at first use, not when this module loads: by then it is
 * @hono/node-server's light Response (its server puts it in place before the first request).
 */
function streamResponse(plain: Record<string, string>): StreamHead {
  StreamResponse ??= streamResponseClass(globalThis.Response);
  return new StreamResponse(plain);
}

function streamResponseClass(Base: typeof Response): new (plain: Record<string, string>) => StreamHead {
  const headers = Object.getOwnPropertyDescriptor(Base.prototype, "headers")?.get;
  if (!headers) throw new Error("Response.prototype has no headers getter");
  class Made extends Base {
    headersRead = false;
    constructor(readonly plain: Record<string, string>) {
      super(null, { status: 200, headers: plain });
    }
  }
  // An accessor over the base's (TypeScript declares Response's `headers` a field, not a getter).
  Object.defineProperty(Made.prototype, "headers", {
    configurable: true,
    get(this: Made): Headers {
      this.headersRead = true;
      return headers.call(this) as Headers;
    },
  });
  return Made;
}

/**
 * For a route whose handler may answer an event stream as a web ReadableStream (`/mcp`): when the
 * final Response is one, our server writes it (./direct-web-stream.ts). Only such routes ask,
 * because telling an event stream from another answer means reading the Response's headers and
 * body, which turns @hono/node-server's light Response into a full one (a web stream for a body
 * that is a string): a cost every other answer would pay.
 */
export function directEventStreams(c: Context): void {
  const env = c.env as NodeEnv | undefined;
  if (env && env[SLOT] === null) env[EVENT_STREAMS] = true;
}

type Fetch = (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>;

/** Streams handed to this path and not yet ended or cancelled (for tests: none may be left). */
let open = 0;
export function directStreamsOpen(): number {
  return open;
}

/**
 * The stream's Response for the middlewares, when this request came through `withDirectSse`;
 * undefined otherwise (the caller sends a web stream).
 */
export function directSseResponse(c: Context, frames: SseFrames, headers: Record<string, string>): Response | undefined {
  const env = c.env as NodeEnv | undefined;
  if (!env || env[SLOT] !== null) return undefined;
  env[SLOT] = frames;
  open++;
  // The ids in the head already, so that the app's first middleware leaves the headers unread.
  const head = withIds(c, sseHeaders(headers));
  // Added last, so that deleting it again (deliver) only undoes V8's last step: the object keeps
  // a fast shape.
  head[MARKER] = "1";
  const response = carryingIds(c, streamResponse(head));
  env[OWN] = response;
  return response;
}

/** `fetch` for @hono/node-server: the app's, then the stream the handler left in the slot, if any. */
export function withDirectSse(fetch: Fetch): Fetch {
  return (request, bindings) => {
    // HTTP/2's response is another class: it gets the web stream.
    if (!(bindings.outgoing instanceof ServerResponse)) return fetch(request, bindings);
    const env = bindings as NodeEnv;
    env[SLOT] = null;
    let answer: Response | Promise<Response>;
    try {
      answer = fetch(request, env);
    } catch (error) {
      drop(env);
      throw error;
    }
    if (!(answer instanceof Promise)) return deliver(answer, env);
    return answer.then(
      (response) => deliver(response, env),
      (error: unknown) => {
        drop(env);
        throw error;
      },
    );
  };
}

/** Cancels the stream left in the slot, if any: its Response will not be sent. */
function drop(env: NodeEnv): void {
  const frames = env[SLOT];
  env[SLOT] = undefined;
  env[OWN] = undefined;
  if (!frames) return;
  open--;
  frames.cancel(new Error("the stream's response was not sent"));
}

function deliver(response: Response, env: NodeEnv): Response {
  if (!env[SLOT]) return (env[EVENT_STREAMS] && eventStream(response, env.outgoing)) || response;
  const own = env[OWN];
  env[OWN] = undefined;
  // The handler's own Response, its headers unread on the way: the plain head is the head.
  if (response === own && !own.headersRead) {
    const frames = env[SLOT];
    env[SLOT] = undefined;
    const head = own.plain;
    delete head[MARKER];
    writeFrames(frames, own.status, head, env.outgoing);
    return alreadySent();
  }
  const headers = response.headers;
  // Hono copies a Response's headers, the marker with them, onto one that replaces it (an error
  // after the handler: Context's `res` setter), but not its content-type: a Response with the
  // marker that is no longer an event stream is a replacement, not ours.
  const ours = headers.get(MARKER) !== null && headers.get("content-type")?.startsWith("text/event-stream") === true;
  if (headers.has(MARKER)) headers.delete(MARKER);
  if (!ours) {
    drop(env);
    return response;
  }
  const frames = env[SLOT];
  env[SLOT] = undefined;
  writeFrames(frames, response.status, nodeHeaders(headers), env.outgoing);
  return alreadySent();
}

/**
 * Another handler's event stream (a web ReadableStream: `/mcp`, the web view's events), written
 * here rather than by @hono/node-server (./direct-web-stream.ts says why); undefined for any other
 * answer.
 */
function eventStream(response: Response, outgoing: ServerResponse): Response | undefined {
  if (response.headers.get("content-type")?.startsWith("text/event-stream") !== true || outgoing.headersSent) return undefined;
  const body = response.body;
  if (!body) return undefined;
  try {
    outgoing.writeHead(response.status, nodeHeaders(response.headers));
  } catch (error) {
    // A header Node refuses: @hono/node-server answers a 500 for the error.
    void body.cancel(error).catch(() => undefined);
    throw error;
  }
  pipeEventStream(body, outgoing);
  return alreadySent();
}

/** The Response's headers as Node's writeHead takes them (each set-cookie kept). */
function nodeHeaders(headers: Headers): OutgoingHttpHeaders {
  const head: OutgoingHttpHeaders = {};
  for (const [name, value] of headers) head[name] = value;
  if (headers.has("set-cookie")) head["set-cookie"] = headers.getSetCookie();
  return head;
}

/**
 * Writes the head, then each burst as the frames give it, waiting for 'drain' when the socket's
 * buffer is full (a slow reader slows the loop), and ends the body after the last. A client that
 * goes away first cancels the frames, as a web stream's cancel does.
 */
function writeFrames(frames: SseFrames, status: number, head: OutgoingHttpHeaders, outgoing: ServerResponse): void {
  let done = false;
  // Ends the wait for 'drain' (also when the client goes).
  let wake: (() => void) | undefined;
  const finish = () => {
    done = true;
    open--;
    outgoing.off("close", gone);
    outgoing.off("error", gone);
  };
  // The reason a web stream's cancel would get: none for 'close', the error for 'error'.
  function gone(reason?: unknown): void {
    if (done) return;
    finish();
    frames.cancel(reason);
    wake?.();
  }
  // Gone while the middlewares ran: nothing to write to.
  if (outgoing.destroyed) return gone();
  try {
    outgoing.writeHead(status, head);
  } catch (error) {
    // A header Node refuses: the stream goes, @hono/node-server answers a 500 for the error.
    gone(error);
    throw error;
  }
  outgoing.once("close", gone);
  outgoing.on("error", gone);
  // The head leaves with the response's head, in this turn: no pull's promises before the first byte.
  const ready = frames.head();
  const headFlowing = ready === undefined || outgoing.write(ready);
  // A keep-alive frame is only for a connection that sends nothing: one whose socket is full is
  // busy sending, and the frame would only grow its buffer.
  frames.keepAlive((frame) => {
    if (!outgoing.writableNeedDrain) outgoing.write(frame);
  });
  const drained = async () => {
    await new Promise<void>((resolve) => {
      wake = resolve;
      outgoing.once("drain", resolve);
    });
    outgoing.off("drain", wake!);
    wake = undefined;
  };
  const pump = async () => {
    if (!headFlowing) await drained();
    while (!done) {
      const burst = await frames.next();
      if (done) return;
      const flowing = burst === "" || outgoing.write(burst);
      if (frames.ended) {
        finish();
        outgoing.end();
        frames.settle();
        return;
      }
      if (!flowing) await drained();
    }
  };
  void pump().catch((error: unknown) => {
    gone(error);
    outgoing.destroy();
  });
}

let sent: Response | undefined;

/**
 * The Response that tells @hono/node-server the answer is already written. Its own Response
 * class keeps a body-less Response in a cache that it writes without looking at
 * x-hono-already-sent (`responseViaCache`: a second writeHead, which throws); reading a body
 * field turns it into a plain Response, which it checks for the header. (Its exported
 * RESPONSE_ALREADY_SENT has the same flaw when built after the server replaced the globals.)
 */
function alreadySent(): Response {
  if (!sent) {
    sent = new Response(null, { headers: { [ALREADY_SENT]: "true" } });
    void sent.bodyUsed;
  }
  return sent;
}
