/**
 * The "transparent log": at level `trace`, every request the gateway sends to a provider and the
 * provider's answer, as they went over the wire (bodies cut at 64 KB; a stream's events logged
 * whole when it ends). Read from undici's diagnostics channels, where every upstream call passes
 * whatever sends it (the adapters' own transport, the SDK clients, Gemini's fetch): nothing is
 * wrapped, and below `trace` nothing subscribes (undici publishes only to subscribers). Requests
 * to other origins than the providers' (MCP servers over HTTP) are left out. The logger redacts as
 * everywhere: credential headers by name, every configured secret by value.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { Logger } from "pino";
import { currentRequestId } from "../../core/request-context.ts";
import { DEFAULT_BASE_URL as ANTHROPIC_BASE_URL } from "../../adapters/anthropic/adapter.ts";
import { DEFAULT_BASE_URL as GEMINI_BASE_URL } from "../../adapters/gemini/transport.ts";
import { DEFAULT_OPENAI_BASE_URL } from "../../adapters/openai-client.ts";

const MAX_BODY_BYTES = 64 * 1024;

/** What undici's channels carry of a request (the fields read here). */
interface UndiciRequest {
  origin: string;
  method: string;
  path: string;
  headers: unknown;
}

/** One call being logged: who it is for, and its bodies so far (bounded). */
interface Exchange {
  provider: string;
  requestId: string | undefined;
  started: number;
  sent: Body;
  received: Body;
  status?: number;
}

class Body {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = 0;

  add(chunk: unknown): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : undefined;
    if (!bytes) return;
    const room = MAX_BODY_BYTES - this.kept;
    if (room > 0) this.chunks.push(bytes.subarray(0, room));
    this.kept += Math.min(room > 0 ? room : 0, bytes.length);
    this.dropped += Math.max(0, bytes.length - Math.max(room, 0));
  }

  text(): string | undefined {
    if (this.kept === 0 && this.dropped === 0) return undefined;
    const text = Buffer.concat(this.chunks).toString("utf8");
    return this.dropped === 0 ? text : `${text}… (${this.dropped} more bytes)`;
  }
}

/** undici keeps a request's headers as [name, value, name, value, …]. */
function headersOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(raw)) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i]).toLowerCase()] = String(raw[i + 1]);
  return out;
}

/**
 * Logs every call to the providers' origins (`origins`: origin → provider name) at trace level
 * until the returned function is called.
 */
export function startWireLog(logger: Logger, origins: ReadonlyMap<string, string>): () => void {
  const exchanges = new WeakMap<object, Exchange>();
  const of = (message: unknown) => exchanges.get((message as { request: object }).request);
  const handlers: Record<string, (message: unknown) => void> = {
    "undici:request:create": (message) => {
      const request = (message as { request: UndiciRequest }).request;
      const provider = origins.get(request.origin);
      if (provider === undefined) return;
      // Published as the call is made: in the request's async context, whose id the later events lack.
      exchanges.set(request, { provider, requestId: currentRequestId(), started: performance.now(), sent: new Body(), received: new Body() });
    },
    "undici:request:bodyChunkSent": (message) => of(message)?.sent.add((message as { chunk: unknown }).chunk),
    "undici:request:bodySent": (message) => {
      const exchange = of(message);
      if (!exchange) return;
      const request = (message as { request: UndiciRequest }).request;
      logger.trace({ requestId: exchange.requestId, provider: exchange.provider, method: request.method, url: `${request.origin}${request.path}`, headers: headersOf(request.headers), body: exchange.sent.text() }, "upstream request");
    },
    "undici:request:headers": (message) => {
      const exchange = of(message);
      if (exchange) exchange.status = (message as { response: { statusCode: number } }).response.statusCode;
    },
    "undici:request:bodyChunkReceived": (message) => of(message)?.received.add((message as { chunk: unknown }).chunk),
    "undici:request:trailers": (message) => ended(message),
    "undici:request:error": (message) => ended(message, (message as { error: unknown }).error),
  };
  const ended = (message: unknown, error?: unknown) => {
    const exchange = of(message);
    if (!exchange) return;
    exchanges.delete((message as { request: object }).request);
    const request = (message as { request: UndiciRequest }).request;
    logger.trace(
      {
        requestId: exchange.requestId,
        provider: exchange.provider,
        url: `${request.origin}${request.path}`,
        status: exchange.status,
        ms: Math.round(performance.now() - exchange.started),
        body: exchange.received.text(),
        ...(error === undefined ? {} : { err: error instanceof Error ? error.message : String(error) }),
      },
      "upstream response",
    );
  };
  for (const [channel, handler] of Object.entries(handlers)) subscribe(channel, handler);
  return () => {
    for (const [channel, handler] of Object.entries(handlers)) unsubscribe(channel, handler);
  };
}

/** Where each provider type goes without a baseURL. */
const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  openai: DEFAULT_OPENAI_BASE_URL,
  "openai-responses": DEFAULT_OPENAI_BASE_URL,
  anthropic: ANTHROPIC_BASE_URL,
  gemini: GEMINI_BASE_URL,
};

/** The providers' origins (of their base URLs, or their type's default), for startWireLog; providers sharing one are named together. */
export function providerOrigins(providers: Iterable<{ name: string; type: string; config: { baseURL?: string | undefined } }>): Map<string, string> {
  const origins = new Map<string, string>();
  for (const provider of providers) {
    const base = provider.config.baseURL ?? DEFAULT_BASE_URLS[provider.type];
    if (!base) continue;
    try {
      const origin = new URL(base).origin;
      const named = origins.get(origin);
      origins.set(origin, named === undefined ? provider.name : `${named},${provider.name}`);
    } catch {
      // Not a URL: the config check reports it.
    }
  }
  return origins;
}
