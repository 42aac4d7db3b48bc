import { GatewayError, parseRetryAfter, type ContextOverflow, type ErrorType } from "../core/index.ts";
import { contextOverflow, type OverflowProtocol } from "./context-overflow.ts";

/** What an upstream HTTP failure looked like, independent of which SDK saw it. */
export interface UpstreamFailure {
  provider: string;
  status: number | undefined;
  message: string;
  /** The provider's own error code/type, if it sent one. */
  code?: string | undefined;
  param?: string | undefined;
  headers?: { get(name: string): string | null } | undefined;
  cause?: unknown;
  /** The protocol whose context-length refusals to recognise (context-overflow.ts). */
  protocol?: OverflowProtocol | undefined;
}

const typeByStatus: Record<number, ErrorType> = {
  400: "invalid_request_error",
  404: "not_found_error",
  408: "timeout_error",
  413: "invalid_request_error",
  422: "invalid_request_error",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** 429, 5xx (incl. Anthropic's 529 overloaded), 408 and 409 (lock timeouts) are worth retrying. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * The provider refused the gateway's own credentials for it. Passed on as 401/403 these would
 * tell the client that ITS key for the gateway is wrong; this is the gateway's configuration
 * failing, so it goes out as a 502 naming the provider. Not retryable: the same key fails again.
 */
const CREDENTIAL_FAILURES: Record<number, { code: string; what: string }> = {
  401: { code: "upstream_authentication_error", what: "rejected the gateway's credentials" },
  403: { code: "upstream_permission_error", what: "refused access with the gateway's credentials" },
};

function upstreamCredentialError(failure: UpstreamFailure, status: number, { code, what }: { code: string; what: string }): GatewayError {
  const { provider } = failure;
  const upstream = `upstream ${status}${failure.code === undefined ? "" : `, ${failure.code}`}: ${failure.message}`;
  return new GatewayError(
    `${provider}: the provider ${what} (${upstream}); check the API key of provider "${provider}" in the gateway config (providers.${provider}.apiKey)`,
    { status: 502, type: "api_error", code, provider, retryable: false, cause: failure.cause },
  );
}

/**
 * An HTTP error answered by the upstream, as a GatewayError that keeps its status (except the
 * provider refusing the gateway's credentials, see CREDENTIAL_FAILURES).
 */
export function upstreamHttpError(failure: UpstreamFailure): GatewayError {
  const status = failure.status ?? 502;
  const credentials = CREDENTIAL_FAILURES[status];
  if (credentials) return upstreamCredentialError(failure, status, credentials);
  const retryAfterMs = parseRetryAfter(failure.headers?.get("retry-after"), failure.headers?.get("retry-after-ms"));
  return new GatewayError(`${failure.provider}: ${failure.message}`, {
    status,
    type: typeByStatus[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"),
    code: failure.code ?? `upstream_${status}`,
    ...(failure.param === undefined ? {} : { param: failure.param }),
    provider: failure.provider,
    retryable: isRetryableStatus(status),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...overflowField(failure, status),
    cause: failure.cause,
  });
}

function overflowField(failure: UpstreamFailure, status: number): { contextOverflow?: ContextOverflow } {
  const overflow = failure.protocol && contextOverflow(failure.protocol, status, failure.code, failure.message);
  return overflow ? { contextOverflow: overflow } : {};
}

/** The upstream could not be reached, or the connection broke. */
export function upstreamConnectionError(provider: string, cause: unknown): GatewayError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new GatewayError(`${provider}: could not reach the provider (${detail})`, {
    status: 502,
    type: "api_error",
    code: "upstream_unreachable",
    provider,
    retryable: true,
    cause,
  });
}

export function upstreamTimeoutError(provider: string, cause?: unknown): GatewayError {
  return new GatewayError(`${provider}: the provider did not answer in time`, {
    status: 504,
    type: "timeout_error",
    code: "upstream_timeout",
    provider,
    retryable: true,
    cause,
  });
}

/** The upstream answered with something that is not its protocol (bad JSON, a stream cut short). */
export function upstreamProtocolError(provider: string, message: string, cause?: unknown): GatewayError {
  return new GatewayError(`${provider}: ${message}`, {
    status: 502,
    type: "api_error",
    code: "upstream_protocol_error",
    provider,
    retryable: true,
    cause,
  });
}

/** The caller aborted (client went away); not retryable. 499 is nginx's "client closed request". */
export function abortedError(provider: string, cause?: unknown): GatewayError {
  return new GatewayError(`${provider}: request aborted`, {
    status: 499,
    type: "api_error",
    code: "request_aborted",
    provider,
    retryable: false,
    cause,
  });
}
