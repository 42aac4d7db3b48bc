/**
 * Forwards one downstream request to an upstream server: same params (names mapped by the
 * caller), the downstream abort signal cancels the upstream request, and upstream progress is
 * relayed with the downstream client's own progress token.
 */
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, type LoggingLevel, type Progress, type StandardSchemaV1 } from "@modelcontextprotocol/server";
import { ErrorCode, mcpError, relayError } from "./errors.ts";
import type { SchemaOutput, UpstreamClient } from "../../mcp/pool.ts";
import type { ModernInput, RequestExtra } from "./types.ts";

type Params = Record<string, unknown> & { _meta?: Record<string, unknown> };

/** The downstream progress token of a request, if the client asked for progress. */
export function progressTokenOf(params: unknown): string | number | undefined {
  const token = (params as Params | undefined)?._meta?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** `params` with the downstream progress token replaced by the gateway's upstream one. */
function withProgressToken(params: Params | undefined, token: string | undefined): Params | undefined {
  if (!params?._meta || !("progressToken" in params._meta)) return params;
  const { progressToken: _dropped, ...meta } = params._meta;
  const { _meta: _old, ...rest } = params;
  if (token !== undefined) return { ...rest, _meta: { ...meta, progressToken: token } };
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/**
 * Progress of upstream requests, by the gateway's own progress tokens. The upstream client's
 * progress notification handler delivers to it (see McpHub.upstreamHandlers). Not the SDK's
 * `onprogress`: the SDK drops a progress notification that arrives in the same read as the
 * response (it routes notifications a microtask later but forgets the token at once).
 */
export class ProgressRoutes {
  private readonly routes = new Map<string, (progress: Progress) => void>();
  private counter = 0;

  open(route: (progress: Progress) => void): string {
    const token = `mcp-gateway-${++this.counter}`;
    this.routes.set(token, route);
    return token;
  }

  close(token: string): void {
    this.routes.delete(token);
  }

  deliver(params: Progress & { progressToken?: unknown }): void {
    const { progressToken, ...progress } = params;
    this.routes.get(String(progressToken))?.(progress);
  }
}

/** Sends `notifications/progress` to the downstream client for its token. */
export function progressRelay(extra: RequestExtra, token: string | number): (progress: Progress) => void {
  return (progress) => {
    extra.mcpReq.notify({ method: "notifications/progress", params: { ...progress, progressToken: token } }).catch(() => undefined);
  };
}

/** The params with a 2026-07-28 client's retry material, and its capabilities in the `_meta` envelope. */
function withModernInput(params: Params | undefined, input: ModernInput): Params {
  return {
    ...params,
    ...(input.inputResponses === undefined ? {} : { inputResponses: input.inputResponses }),
    ...(input.requestState === undefined ? {} : { requestState: input.requestState }),
    ...(input.capabilities === undefined ? {} : { _meta: { ...params?._meta, [CLIENT_CAPABILITIES_META_KEY]: input.capabilities } }),
  };
}

/**
 * The params with the log level in the `_meta` envelope: a 2026-07-28 server logs while serving
 * a request only at the level the request asks for (none without one), where a 2025 server has
 * the level `logging/setLevel` set.
 */
function withLogLevel(params: Params | undefined, level: LoggingLevel | undefined): Params | undefined {
  return level === undefined ? params : { ...params, _meta: { ...params?._meta, [LOG_LEVEL_META_KEY]: level } };
}

export interface Forwarding {
  extra: RequestExtra;
  /**
   * A 2026-07-28 client's request: to a 2026-07-28 server, its retry material and capabilities
   * go along, and an InputRequiredResult comes back as it is (the exchange is between them,
   * the gateway keeps nothing). To a 2025 server they are not sent (the gateway relays what it asks).
   */
  modern?: ModernInput | undefined;
  /** How long the server may stay silent: counted from the request, and again from each progress notification. */
  timeoutMs: number;
  progress: ProgressRoutes;
  /**
   * The level the client wants log messages at (a 2026-07-28 request's logLevel, a 2025
   * session's logging/setLevel), sent to a 2026-07-28 server with the request.
   */
  logLevel?: LoggingLevel | undefined;
}

/** The longest delay setTimeout takes. */
const NO_SDK_TIMEOUT = 2_147_483_647;

export async function forwardRequest<S extends StandardSchemaV1>(
  client: UpstreamClient,
  method: string,
  params: Params | undefined,
  schema: S,
  { extra, timeoutMs, progress, modern, logLevel }: Forwarding,
): Promise<SchemaOutput<S>> {
  const passThrough = modern !== undefined && client.era === "modern";
  // Aborted by the client's cancellation, or when the server stays silent too long (the SDK's
  // own timeout cannot be reset by progress the gateway routes itself).
  const controller = new AbortController();
  const signal = extra.mcpReq.signal;
  const cancel = () => controller.abort(signal.reason);
  signal.addEventListener("abort", cancel, { once: true });
  if (signal.aborted) cancel();
  let expired = false;
  const expire = () => {
    expired = true;
    controller.abort(new Error("Request timed out"));
  };
  let timer = setTimeout(expire, timeoutMs);
  const downstreamToken = progressTokenOf(params);
  const relay = downstreamToken === undefined ? undefined : progressRelay(extra, downstreamToken);
  const token =
    relay === undefined
      ? undefined
      : progress.open((p) => {
          clearTimeout(timer);
          timer = setTimeout(expire, timeoutMs);
          relay(p);
        });
  const withToken = withProgressToken(params, token);
  const forwarded = client.era === "modern" ? withLogLevel(passThrough ? withModernInput(withToken, modern) : withToken, logLevel) : withToken;
  try {
    // With passThrough, the result may be an InputRequiredResult rather than S's: the caller
    // (the 2026-07-28 door) returns either as it is.
    return await client.request({ method, ...(forwarded === undefined ? {} : { params: forwarded }) }, schema, {
      signal: controller.signal,
      timeoutMs: NO_SDK_TIMEOUT,
      ...(passThrough ? { allowInputRequired: true } : {}),
    });
  } catch (error) {
    if (expired) throw mcpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs });
    throw relayError(error);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", cancel);
    if (token !== undefined) progress.close(token);
  }
}
