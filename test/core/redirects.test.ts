/**
 * The redirect rules of fetch (the WHATWG standard's HTTP-redirect fetch, as undici's fetch applies
 * them), as src/core/redirects.ts decides them. The transports that use it are held against
 * Node's own fetch in test/core/fast-fetch.test.ts and test/adapters/upstream-http.test.ts.
 */
import { describe, expect, it } from "vitest";
import { REDIRECT_LIMIT, RedirectFailure, redirectOf, type Outgoing } from "../../src/core/redirects.ts";

const post: Outgoing = {
  url: "https://api.example.com/v1/chat/completions",
  method: "POST",
  headers: { "content-type": "application/json", "content-length": "7", authorization: "Bearer k", cookie: "c=1", "proxy-authorization": "p", host: "api.example.com", "x-api-key": "k2" },
  body: '{"q":1}',
};

describe("redirectOf", () => {
  it("is undefined for an answer that is not a redirect, and for a redirect without a Location", () => {
    for (const status of [200, 204, 300, 304, 400, 500]) expect(redirectOf(post, status, "/elsewhere", 0)).toBeUndefined();
    expect(redirectOf(post, 307, undefined, 0)).toBeUndefined();
  });

  it("307 and 308 send the same method, body and headers to the Location, resolved against the request's URL", () => {
    for (const status of [307, 308]) {
      expect(redirectOf(post, status, "/v2/chat/completions?x=1", 0)).toEqual({ ...post, url: "https://api.example.com/v2/chat/completions?x=1" });
    }
  });

  it("301 and 302 turn a POST into a GET without its body and the headers that describe it; other methods stay", () => {
    for (const status of [301, 302]) {
      const next = redirectOf(post, status, "https://api.example.com/new", 0)!;
      expect(next.method).toBe("GET");
      expect(next.body).toBeNull();
      expect(Object.keys(next.headers).sort()).toEqual(["authorization", "cookie", "host", "proxy-authorization", "x-api-key"]);
      expect(redirectOf({ ...post, method: "PUT" }, status, "/new", 0)).toMatchObject({ method: "PUT", body: '{"q":1}' });
    }
    // fetch compares the normalized method.
    expect(redirectOf({ ...post, method: "post" }, 302, "/new", 0)).toMatchObject({ method: "GET", body: null });
  });

  it("303 turns anything but GET and HEAD into a GET", () => {
    expect(redirectOf({ ...post, method: "PUT" }, 303, "/new", 0)).toMatchObject({ method: "GET", body: null });
    expect(redirectOf({ ...post, method: "HEAD", body: null }, 303, "/new", 0)).toMatchObject({ method: "HEAD" });
  });

  it("to another origin (scheme, host or port), the credentials fetch guards stay behind; the others go on", () => {
    for (const location of ["https://other.example.com/v1", "http://api.example.com/v1", "https://api.example.com:8443/v1"]) {
      const next = redirectOf(post, 307, location, 0)!;
      expect(Object.keys(next.headers).sort()).toEqual(["content-length", "content-type", "x-api-key"]);
      expect(next.body).toBe('{"q":1}');
    }
  });

  it("keeps the request's fragment when the Location has none, as fetch does", () => {
    expect(redirectOf({ ...post, url: "https://api.example.com/a#frag" }, 308, "/b", 0)!.url).toBe("https://api.example.com/b#frag");
    expect(redirectOf({ ...post, url: "https://api.example.com/a#frag" }, 308, "/b#own", 0)!.url).toBe("https://api.example.com/b#own");
  });

  it("fails where fetch fails with a network error: a scheme that is not http(s), the 21st redirect, a stream body a 307 would resend", () => {
    expect(() => redirectOf(post, 307, "ftp://files.example.com/x", 0)).toThrow(new RedirectFailure("URL scheme must be a HTTP(S) scheme"));
    expect(redirectOf(post, 307, "/again", REDIRECT_LIMIT - 1)).toBeDefined();
    expect(() => redirectOf(post, 307, "/again", REDIRECT_LIMIT)).toThrow(new RedirectFailure("redirect count exceeded"));
    const streamed: Outgoing<unknown> = { ...post, body: {}, replayable: false };
    expect(() => redirectOf(streamed, 307, "/again", 0)).toThrow(RedirectFailure);
    expect(() => redirectOf(streamed, 302, "/again", 0)).toThrow(RedirectFailure);
    // 303 drops the body: nothing to resend.
    expect(redirectOf(streamed, 303, "/again", 0)).toMatchObject({ method: "GET", body: null });
  });

  it("reads a raw UTF-8 Location (undici hands it over as latin1) as fetch does, and refuses one with credentials", () => {
    const raw = Buffer.from("/café", "utf8").toString("latin1");
    expect(redirectOf(post, 307, raw, 0)!.url).toBe("https://api.example.com/caf%C3%A9");
    expect(redirectOf(post, 307, "/caf%C3%A9", 0)!.url).toBe("https://api.example.com/caf%C3%A9");
    expect(() => redirectOf(post, 307, "https://user:pw@api.example.com/v1", 0)).toThrow(RedirectFailure);
  });
});
