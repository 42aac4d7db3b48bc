/**
 * The "transparent log": at level `trace`, every request the gateway sends to a provider and the
 * provider's answer, as they went over the wire (bodies cut at 64 KB; a stream's events logged
 * whole when it ends). The logger redacts as everywhere: credential headers by name, every
 * configured secret by value. Wraps the `fetch` the provider adapters use; below `trace` the
 * adapters get the plain one and nothing here runs.
 */
import type { Logger } from "pino";

const MAX_BODY_CHARS = 64 * 1024;

function bodyText(body: unknown): string | undefined {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new TextDecoder().decode(body);
  return body === undefined || body === null ? undefined : `[${Object.prototype.toString.call(body)}]`;
}

function cut(text: string): string {
  return text.length <= MAX_BODY_CHARS ? text : `${text.slice(0, MAX_BODY_CHARS)}… (${text.length - MAX_BODY_CHARS} more characters)`;
}

function headersOf(init: RequestInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init?.headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/** `base` with each request and response logged at trace level for `provider`. */
export function wireLoggingFetch(base: typeof fetch, provider: string, logger: Logger): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const started = performance.now();
    const body = bodyText(init?.body);
    logger.trace({ provider, method: init?.method ?? "GET", url, headers: headersOf(init), body: body === undefined ? undefined : cut(body) }, "upstream request");
    const response = await base(input, init);
    const meta = { provider, url, status: response.status, ms: Math.round(performance.now() - started) };
    const log = (text: string) => logger.trace({ ...meta, body: cut(text) }, "upstream response");
    return loggedResponse(response, log);
  };
}

/**
 * The response, its body logged once read: whole (`json`, `text`) or as a stream (every chunk
 * passed on as it comes, the text logged at the end). Everything else is the response's own.
 */
function loggedResponse(response: Response, log: (text: string) => void): Response {
  let stream: ReadableStream<Uint8Array> | null | undefined;
  return new Proxy(response, {
    get(target, property) {
      if (property === "body") {
        if (stream === undefined) {
          const source = target.body;
          if (!source) stream = null;
          else {
            const decoder = new TextDecoder();
            let text = "";
            stream = source.pipeThrough(
              new TransformStream<Uint8Array, Uint8Array>({
                transform(chunk, controller) {
                  if (text.length < MAX_BODY_CHARS * 2) text += decoder.decode(chunk, { stream: true });
                  controller.enqueue(chunk);
                },
                flush() {
                  log(text);
                },
              }),
            );
          }
        }
        return stream;
      }
      if (property === "text") return async () => {
        const text = await target.text();
        log(text);
        return text;
      };
      if (property === "json") return async () => {
        const text = await target.text();
        log(text);
        return JSON.parse(text) as unknown;
      };
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
