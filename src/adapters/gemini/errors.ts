/**
 * Google's errors as GatewayErrors. Every Google API answers failures as a google.rpc.Status in
 * JSON (`{"error": {"code": 429, "message": "…", "status": "RESOURCE_EXHAUSTED", "details": […]}}`;
 * some front ends wrap it in an array); a stream may also carry one as a data line. The HTTP
 * status decides (../http-error.ts: 429 and 5xx retryable); the status name stands in when there
 * is none, and becomes the error's code.
 */
import { GatewayError, isGatewayError, toGatewayError } from "../../core/index.ts";
import { upstreamConnectionError, upstreamHttpError, upstreamProtocolError } from "../http-error.ts";
import { isJsonObject } from "../../core/json-object.ts";
import type { WireError } from "./wire.ts";

/** google.rpc.Code names and the HTTP status Google answers each with (cloud.google.com/apis/design/errors). */
export const STATUS_BY_NAME: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  UNKNOWN: 500,
  INTERNAL: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** An invalid API key is answered 400 INVALID_ARGUMENT with this reason: it is the gateway's key that is wrong. */
const CREDENTIAL_REASONS = new Set(["API_KEY_INVALID", "API_KEY_EXPIRED"]);

/** The error object of a body: `{error}`, `[{error}]`, or a bare status. */
export function errorOf(body: unknown): WireError | undefined {
  const value = Array.isArray(body) ? body[0] : body;
  if (!isJsonObject(value)) return undefined;
  const inner = value["error"];
  if (isJsonObject(inner)) return inner as WireError;
  return typeof value["message"] === "string" && (typeof value["status"] === "string" || typeof value["code"] === "number") ? (value as WireError) : undefined;
}

/** RetryInfo's `retryDelay` ("39s", "1.5s"), as the retry-after-ms the shared mapping reads. */
function retryDelayMs(error: WireError): number | undefined {
  for (const detail of error.details ?? []) {
    const match = typeof detail.retryDelay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(detail.retryDelay) : null;
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

function withRetryDelay(headers: Headers | undefined, delayMs: number | undefined): { get(name: string): string | null } | undefined {
  if (delayMs === undefined) return headers;
  return { get: (name) => (name === "retry-after-ms" && !headers?.get("retry-after") ? String(delayMs) : (headers?.get(name) ?? null)) };
}

/** A failure Google answered (an HTTP error, or an error object in a stream). */
export function googleError(provider: string, error: WireError | undefined, httpStatus?: number, headers?: Headers, fallbackText?: string): GatewayError {
  const name = error?.status;
  let status = httpStatus ?? (typeof error?.code === "number" && error.code >= 400 ? error.code : undefined) ?? (name ? STATUS_BY_NAME[name] : undefined) ?? 500;
  if (error?.details?.some((detail) => typeof detail.reason === "string" && CREDENTIAL_REASONS.has(detail.reason))) status = 401;
  const message = error?.message ?? (fallbackText ? fallbackText.slice(0, 500) : `HTTP ${status}`);
  return upstreamHttpError({ provider, status, message, code: name, headers: withRetryDelay(headers, error ? retryDelayMs(error) : undefined), cause: error, protocol: "gemini" });
}

/** An HTTP error response: its body read as Google's error shape, or quoted when it is something else. */
export async function responseError(provider: string, response: Response): Promise<GatewayError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return googleError(provider, errorOf(body), response.status, response.headers, text);
}

/** What fetch and the body reading throw, as a GatewayError (aborts are the caller's: see IdleAbort). */
export function transportError(provider: string, error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  if (error instanceof SyntaxError) return upstreamProtocolError(provider, `invalid JSON from the provider (${error.message})`, error);
  // fetch reports a refused or broken connection as a TypeError ("fetch failed", "terminated") with the socket error as cause.
  if (error instanceof TypeError || (error instanceof Error && "code" in error)) return upstreamConnectionError(provider, rootCause(error));
  return toGatewayError(error);
}

function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) current = current.cause;
  return current;
}
