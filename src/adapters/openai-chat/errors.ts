import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from "openai/core/error";
import { GatewayError, toGatewayError } from "../../core/index.ts";
import {
  abortedError,
  upstreamConnectionError,
  upstreamHttpError,
  upstreamProtocolError,
  upstreamTimeoutError,
} from "../http-error.ts";

/** The error body's own message (the SDK's message prefixes the status). */
function upstreamMessage(error: APIError): string {
  const body = error.error;
  if (typeof body === "object" && body !== null && "message" in body && typeof body.message === "string") {
    return body.message;
  }
  return error.message;
}

/**
 * An error frame inside a 200 stream has no HTTP status; some servers (OpenRouter) put one in
 * the frame's numeric `code`. Anything else is a failure of the upstream: 502.
 */
function frameStatus(code: unknown): number | undefined {
  const status = typeof code === "number" ? code : typeof code === "string" ? Number(code) : NaN;
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : undefined;
}

function fromApiError(error: APIError, provider: string): GatewayError {
  const code: unknown = error.code;
  return upstreamHttpError({
    provider,
    status: error.status ?? frameStatus(code) ?? 502,
    message: upstreamMessage(error),
    code: typeof code === "string" && code !== "" ? code : undefined,
    param: typeof error.param === "string" ? error.param : undefined,
    headers: error.headers,
    cause: error,
    protocol: "openai",
  });
}

/** undici's errors for a connection that broke while the body was read ("terminated", resets). */
function isBrokenConnection(error: unknown): error is Error {
  if (!(error instanceof Error)) return false;
  if (error.message === "terminated" || error.message === "fetch failed") return true;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("UND_ERR") || /^E[A-Z]+$/.test(code));
}

/**
 * Any failure of an OpenAI SDK call as a GatewayError. The adapter asks its IdleAbort first:
 * after an abort or an idle timeout the SDK ends the stream silently or with a generic error.
 */
export function toGatewayErrorFromOpenAI(error: unknown, provider: string): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof APIUserAbortError) return abortedError(provider, error);
  if (error instanceof APIConnectionTimeoutError) return upstreamTimeoutError(provider, error);
  if (error instanceof APIConnectionError) return upstreamConnectionError(provider, error.cause ?? error);
  if (error instanceof APIError) return fromApiError(error, provider);
  if (error instanceof SyntaxError) {
    return upstreamProtocolError(provider, `invalid JSON from the provider (${error.message})`, error);
  }
  // Reached only once the headers are in (the SDK wraps earlier failures in APIConnectionError):
  // the provider answered, then the body was cut short.
  if (isBrokenConnection(error)) {
    return upstreamProtocolError(provider, `the response was cut off mid-way (${error.message})`, error);
  }
  if (error instanceof OpenAIError) return upstreamProtocolError(provider, error.message, error);
  return toGatewayError(error);
}
