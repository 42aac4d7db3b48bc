/**
 * Failures as GatewayErrors. HTTP errors go through the shared status mapping (../http-error.ts)
 * by way of the openai SDK's error classes, which the Chat Completions adapter already maps; a
 * stream's `error` event and a `response.failed` have no HTTP status of their own and get the
 * status OpenAI answers the same code with, so retries and fallbacks treat both alike.
 */
import { GatewayError } from "../../core/index.ts";
import { upstreamHttpError } from "../http-error.ts";
import { toGatewayErrorFromOpenAI } from "../openai-chat/errors.ts";
import type { ResponseError, WireErrorEvent } from "./wire.ts";

/** By error code, then by error type (an `error` event carries both; a failed response a code). */
const STATUS_BY_CODE: Record<string, number> = {
  server_error: 500,
  api_error: 500,
  rate_limit_exceeded: 429,
  rate_limit_error: 429,
  insufficient_quota: 429,
  invalid_prompt: 400,
  invalid_request_error: 400,
  context_length_exceeded: 400,
  bio_policy: 400,
  data_residency_mismatch: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  not_found_error: 404,
  vector_store_timeout: 504,
};

/** The image codes of a failed response (invalid_image, image_too_large, failed_to_download_image, …): the input's fault. */
const IMAGE_CODE = /image/;

export function statusForCode(...codes: (string | null | undefined)[]): number {
  for (const code of codes) {
    if (!code) continue;
    const status = STATUS_BY_CODE[code];
    if (status !== undefined) return status;
    if (IMAGE_CODE.test(code)) return 400;
  }
  return 500;
}

/**
 * An exhausted quota is billing, not load: waiting does not bring it back, so it is not retried
 * (the fallback list still applies, as for any 429).
 */
function withQuotaRule(error: GatewayError): GatewayError {
  if (error.code !== "insufficient_quota" || !error.retryable) return error;
  return new GatewayError(error.message, {
    status: error.status,
    type: error.type,
    code: error.code,
    ...(error.param === undefined ? {} : { param: error.param }),
    ...(error.provider === undefined ? {} : { provider: error.provider }),
    retryable: false,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    cause: error.cause,
  });
}

/** Anything the SDK (or the network under it) throws. */
export function fromOpenAIResponsesError(provider: string, error: unknown): GatewayError {
  return withQuotaRule(toGatewayErrorFromOpenAI(error, provider));
}

/** An `error` event of the stream. */
export function streamErrorEvent(provider: string, event: WireErrorEvent): GatewayError {
  const inner = event.error ?? undefined;
  const code = inner?.code ?? event.code ?? inner?.type ?? undefined;
  const param = inner?.param ?? event.param ?? undefined;
  return withQuotaRule(
    upstreamHttpError({
      provider,
      status: statusForCode(inner?.code, event.code, inner?.type),
      message: inner?.message ?? event.message ?? "error event in the stream",
      code: code ?? undefined,
      param,
      protocol: "openai-responses",
    }),
  );
}

/** A response that ended `failed` (a `response.failed` event, or a plain response with that status). */
export function failedResponseError(provider: string, error: ResponseError | null | undefined): GatewayError {
  return withQuotaRule(
    upstreamHttpError({
      provider,
      status: statusForCode(error?.code),
      message: error?.message ?? "the response failed",
      code: error?.code ?? "response_failed",
      protocol: "openai-responses",
    }),
  );
}
