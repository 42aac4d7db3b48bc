/**
 * What fetch does when an answer redirects (the WHATWG fetch standard's "HTTP-redirect fetch", as
 * undici's fetch implements it), for the transports that send with undici's dispatcher instead of
 * fetch: the provider calls (src/adapters/upstream-http.ts) and fastFetch (./fast-fetch.ts). The
 * SDKs sent with fetch, which follows redirects by default; without this, a provider or an
 * OpenAI-compatible server behind a redirect (a moved path, a trailing slash, a new host) failed
 * with a 3xx where the SDK had followed it.
 *
 * The decision (where the next request goes, with what method, headers and body) and the walk
 * along a chain are here; sending each hop, and letting go of a redirect's own body, is the
 * transport's (`Hops`).
 */

/** fetch gives up after this many redirects ("redirect count exceeded"). */
export const REDIRECT_LIMIT = 20;

/** A request as the transports send it: lower-case header names. */
export interface Outgoing<Body = string | Uint8Array> {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: Body | null | undefined;
  /** False when the body cannot be sent again (a stream): only a 303 (which drops it) is followed. */
  replayable?: boolean;
}

/** The headers that describe a body: dropped with it when a redirect turns the request into a GET. */
const BODY_HEADERS = ["content-encoding", "content-language", "content-location", "content-type", "content-length"];

/** Credentials that do not go to another origin. */
const ORIGIN_HEADERS = ["authorization", "proxy-authorization", "cookie", "host"];

/** A redirect fetch would not follow: a network error, as fetch reports it (its `cause`). */
export class RedirectFailure extends Error {
  override readonly name = "RedirectFailure";
}

/**
 * A Location as fetch reads it: undici hands header values over as latin1, and a server that
 * sends a raw UTF-8 path (not percent-encoded) means its UTF-8 bytes, as browsers and fetch take them.
 */
function asUtf8(location: string): string {
  return /[^\x00-\x7f]/.test(location) ? Buffer.from(location, "latin1").toString("utf8") : location;
}

export function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/**
 * The request fetch sends next when `sent` was answered `status` with `location`, after `followed`
 * redirects already; undefined when the answer is the response (not a redirect, or no Location).
 * Throws a RedirectFailure where fetch fails with a network error.
 */
export function redirectOf<Body>(sent: Outgoing<Body>, status: number, location: string | undefined, followed: number): Outgoing<Body> | undefined {
  if (!isRedirect(status) || location === undefined) return undefined;
  let target: URL;
  try {
    target = new URL(asUtf8(location), sent.url);
  } catch {
    throw new RedirectFailure(`invalid redirect location: ${location}`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new RedirectFailure("URL scheme must be a HTTP(S) scheme");
  // Node's fetch refuses these (its requests are in "cors" mode): credentials are not taken from a Location.
  if (target.username !== "" || target.password !== "") throw new RedirectFailure("URL cannot contain credentials for request mode \"cors\"");
  if (followed >= REDIRECT_LIMIT) throw new RedirectFailure("redirect count exceeded");
  const from = new URL(sent.url);
  // As fetch: the fragment of the request's URL stays when the Location has none.
  if (target.hash === "" && from.hash !== "") target.hash = from.hash;
  const hasBody = sent.body !== null && sent.body !== undefined;
  if (status !== 303 && hasBody && sent.replayable === false) throw new RedirectFailure("a streamed request body cannot be sent again to a redirect");
  // fetch compares the normalized (upper-case) method.
  const method = sent.method.toUpperCase();
  const toGet = ((status === 301 || status === 302) && method === "POST") || (status === 303 && method !== "GET" && method !== "HEAD");
  const headers = { ...sent.headers };
  if (toGet) for (const name of BODY_HEADERS) delete headers[name];
  if (target.origin !== from.origin) for (const name of ORIGIN_HEADERS) delete headers[name];
  return toGet ? { url: target.href, method: "GET", headers, body: null } : { ...sent, url: target.href, headers };
}

/** How a transport takes part in a chain: reads its answers, sends the next hop, lets go of a redirect. */
export interface Hops<Answer, Body> {
  status(answer: Answer): number;
  location(answer: Answer): string | undefined;
  send(next: Outgoing<Body>): Promise<Answer>;
  /** A redirect's answer, not the last: its body is not read. */
  discard(answer: Answer): void;
}

/**
 * Follows `answer` (to `sent`) along its redirects, as fetch does: resolves with the last request
 * sent and its answer, the first that is not a redirect to follow. A RedirectFailure (the rules')
 * comes after the answer that caused it was let go; a failure to send is the transport's own.
 */
export async function followRedirects<Answer, Body>(sent: Outgoing<Body>, answer: Answer, hops: Hops<Answer, Body>): Promise<{ sent: Outgoing<Body>; answer: Answer }> {
  for (let followed = 0; ; followed++) {
    let next: Outgoing<Body> | undefined;
    try {
      next = redirectOf(sent, hops.status(answer), hops.location(answer), followed);
    } catch (error) {
      hops.discard(answer);
      throw error;
    }
    if (!next) return { sent, answer };
    hops.discard(answer);
    sent = next;
    answer = await hops.send(next);
  }
}
