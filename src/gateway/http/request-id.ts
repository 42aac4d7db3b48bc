import { randomUUID } from "node:crypto";
import type { Context } from "hono";

/** The request's id, as the app's first middleware set it (src/gateway/http/app.ts). */
export function requestIdOf(c: Context): string | undefined {
  return c.get("requestId" as never) as string | undefined;
}

/** A client's x-request-id when it is a sane token, else a fresh one. */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
}

/** The context's record of an answer that already carries the request's id headers. */
const CARRIES_IDS = Symbol("answer carries ids");

/**
 * A whole answer with plain headers and the request's id headers among them (`x-request-id`, and
 * Anthropic's `request-id` on its routes), which the app's first middleware then leaves as it is.
 * On @hono/node-server a Response made with a string body and a plain headers object is written
 * from them as they are; `c.body()` with several headers, and any later `res.headers.set()`, make
 * a web Headers object of them instead, normalized one header at a time and turned back into a
 * plain object for Node (about 2% of a whole answer's CPU: docs/performance.md).
 *
 * A middleware that adds headers to the answer sets them on `c.res` after `next()` (as CORS, the
 * key limits and the first middleware do), not with `c.header()` before it: Hono merges such
 * prepared headers into what `c.body()` makes, not into a Response made here.
 */
export function answerWithIds(c: Context, body: string, status: number, headers: Record<string, string>): Response {
  return carryingIds(c, new Response(body, { status, headers: withIds(c, headers) }));
}

/** `headers` with the request's id headers put in (x-request-id; request-id on Anthropic's routes). */
export function withIds(c: Context, headers: Record<string, string>): Record<string, string> {
  const id = requestIdOf(c);
  if (id !== undefined) {
    headers["x-request-id"] = id;
    if (c.get(ANTHROPIC_IDS as never) === true) headers["request-id"] = id;
  }
  return headers;
}

/** Records that `response` (made with `withIds`' headers) carries the request's ids. */
export function carryingIds<R extends Response>(c: Context, response: R): R {
  c.set(CARRIES_IDS as never, response as never);
  return response;
}

/** Whether `response` is one `answerWithIds` made for this request (its ids are in it). */
export function carriesIds(c: Context, response: Response): boolean {
  return c.get(CARRIES_IDS as never) === response;
}

/** Set by the app's first middleware on the routes where Anthropic's `request-id` header goes beside ours. */
export const ANTHROPIC_IDS = Symbol("anthropic ids");
