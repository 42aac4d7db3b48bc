/**
 * Anything the SDK (or the network under it) throws, as a GatewayError. The status-based mapping
 * itself is shared by all adapters (../http-error.ts); this file knows the SDK's error classes.
 */
import {
  AnthropicError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk/core/error";
import { isGatewayError, toGatewayError, type GatewayError } from "../../core/index.ts";
import {
  abortedError,
  upstreamConnectionError,
  upstreamHttpError,
  upstreamProtocolError,
  upstreamTimeoutError,
} from "../http-error.ts";
import type { SdkErrors } from "../upstream-http.ts";

/** The Anthropic SDK's errors for the gateway's transport: what its own request path throws. */
export const ANTHROPIC_ERRORS: SdkErrors = {
  status: (status, json, text, headers) => APIError.generate(status, json, text, headers),
  connection: (cause) => new APIConnectionError({ cause }),
  timeout: () => new APIConnectionTimeoutError(),
  aborted: () => new APIUserAbortError(),
};

/**
 * An in-stream `event: error` has no HTTP status of its own; this is the status Anthropic answers
 * the same error type with, so retry logic treats both alike (overloaded_error is its 529).
 */
const STATUS_BY_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  conflict_error: 409,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function statusForErrorType(type: string | null | undefined): number {
  return (type ? STATUS_BY_ERROR_TYPE[type] : undefined) ?? 500;
}

/** The innermost cause names the real failure (`connect ECONNREFUSED …`, `other side closed`). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
  }
  return current;
}

function fromApiError(provider: string, error: APIError): GatewayError {
  return upstreamHttpError({
    provider,
    status: error.status ?? statusForErrorType(error.type),
    message: error.apiMessage ?? error.message,
    code: error.errorCode ?? error.type ?? undefined,
    headers: error.headers,
    cause: error,
    protocol: "anthropic",
  });
}

/** The error payload of an in-stream error event that reached us as data. */
export function streamErrorEvent(provider: string, error: { type?: string; message?: string } | undefined): GatewayError {
  return upstreamHttpError({
    provider,
    status: statusForErrorType(error?.type),
    message: error?.message ?? "error event in the stream",
    code: error?.type,
    protocol: "anthropic",
  });
}

export function fromAnthropicError(provider: string, error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  // Subclasses first: the abort and timeout errors are also APIErrors / APIConnectionErrors.
  if (error instanceof APIUserAbortError) return abortedError(provider, error);
  if (error instanceof APIConnectionTimeoutError) return upstreamTimeoutError(provider, error);
  if (error instanceof APIConnectionError) return upstreamConnectionError(provider, rootCause(error));
  if (error instanceof APIError) return fromApiError(provider, error);
  if (error instanceof SyntaxError) return upstreamProtocolError(provider, `invalid JSON from the provider (${error.message})`, error);
  if (error instanceof AnthropicError) return upstreamProtocolError(provider, error.message, error);
  // fetch reports a connection that broke while the body was read as a TypeError ("terminated").
  if (error instanceof TypeError) return upstreamConnectionError(provider, rootCause(error));
  return toGatewayError(error);
}
