/**
 * The URL and headers an official SDK client sends a JSON POST with (auth, version and
 * identification headers, the configured extra headers), taken from the client once by asking it
 * to build a request: the gateway's transport (./upstream-http.ts) then sends every call with
 * them, and the SDK stays the description of its wire.
 */

export interface RequestHead {
  url: string;
  /** Lower-case names. */
  headers: Record<string, string>;
}

/** The part of both SDK clients (openai, @anthropic-ai/sdk) this reads. */
export interface RequestBuilder {
  buildRequest(options: { method: "post"; path: string; body: object }): Promise<{ url: string; req: { headers?: ConstructorParameters<typeof Headers>[0] | undefined } }>;
}

async function build(client: RequestBuilder, path: string): Promise<RequestHead> {
  const { url, req } = await client.buildRequest({ method: "post", path, body: {} });
  const headers: Record<string, string> = {};
  new Headers(req.headers).forEach((value, key) => {
    headers[key] = value;
  });
  return { url, headers };
}

/**
 * The head of `path`'s requests, built at once and kept. `get()` is synchronous once it is built
 * (every call after the first): no await per request.
 */
export class SdkHead {
  private head: RequestHead | undefined;
  private readonly building: Promise<RequestHead>;

  /** The client may still be on its way (the SDKs' client modules load on first use). */
  constructor(client: RequestBuilder | Promise<RequestBuilder>, path: string) {
    this.building = Promise.resolve(client)
      .then((ready) => build(ready, path))
      .then((head) => (this.head = head));
    // A client that cannot build (a bad base URL) fails each call with the SDK's error instead.
    this.building.catch(() => undefined);
  }

  get(): RequestHead | Promise<RequestHead> {
    return this.head ?? this.building;
  }
}

/** The head's headers with a call's own (lower-case names) on top, as the SDKs merge them. */
export function withHeaders(head: RequestHead, extra: Record<string, string> | undefined): Record<string, string> {
  if (extra === undefined) return head.headers;
  const merged = { ...head.headers };
  for (const [key, value] of Object.entries(extra)) merged[key.toLowerCase()] = value;
  return merged;
}
