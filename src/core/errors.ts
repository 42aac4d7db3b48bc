/**
 * The one error type every layer throws. It carries what the gateway needs to answer a client
 * (HTTP status and the OpenAI error shape) and what retry logic needs (retryable, retry-after).
 */

/** OpenAI-style error types, as clients already know them. */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "api_error"
  | "timeout_error"
  | "overloaded_error";

/** A provider's context-length refusal, with the numbers its text gave (when it gave them). */
export interface ContextOverflow {
  /** The model's context window, in the provider's tokens. */
  window?: number;
  /** What the refused request counted, in the provider's tokens. */
  tokens?: number;
}

export interface GatewayErrorOptions {
  status: number;
  type: ErrorType;
  code?: string;
  /** JSON path of the offending field, e.g. `messages[2].content`. */
  param?: string;
  /** The provider (config key) that produced the error, if any. */
  provider?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  /** The provider refused the request because its conversation is longer than the model's context window. */
  contextOverflow?: ContextOverflow;
  cause?: unknown;
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly provider: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly contextOverflow: ContextOverflow | undefined;

  constructor(message: string, options: GatewayErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "GatewayError";
    this.status = options.status;
    this.type = options.type;
    this.code = options.code;
    this.param = options.param;
    this.provider = options.provider;
    this.retryable = options.retryable ?? false;
    this.retryAfterMs = options.retryAfterMs;
    this.contextOverflow = options.contextOverflow;
  }

  /** The same error with another message (e.g. with secrets scrubbed out). */
  withMessage(message: string): GatewayError {
    if (message === this.message) return this;
    return new GatewayError(message, {
      status: this.status,
      type: this.type,
      ...(this.code === undefined ? {} : { code: this.code }),
      ...(this.param === undefined ? {} : { param: this.param }),
      ...(this.provider === undefined ? {} : { provider: this.provider }),
      retryable: this.retryable,
      ...(this.retryAfterMs === undefined ? {} : { retryAfterMs: this.retryAfterMs }),
      ...(this.contextOverflow ? { contextOverflow: this.contextOverflow } : {}),
      cause: this.cause,
    });
  }

  toJSON(): OpenAIErrorBody {
    return {
      error: { message: this.message, type: this.type, param: this.param ?? null, code: this.code ?? null },
    };
  }

  static invalidRequest(message: string, param?: string, code = "invalid_request"): GatewayError {
    return new GatewayError(message, { status: 400, type: "invalid_request_error", code, ...(param === undefined ? {} : { param }) });
  }

  static notFound(message: string, code: string, param?: string): GatewayError {
    return new GatewayError(message, { status: 404, type: "not_found_error", code, ...(param === undefined ? {} : { param }) });
  }

  static internal(message: string, cause?: unknown): GatewayError {
    return new GatewayError(message, { status: 500, type: "api_error", code: "internal_error", cause });
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/**
 * Any thrown value as a GatewayError. Unknown failures become a 500 whose message hides the
 * internals (the original stays as `cause`, for the logs).
 */
export function toGatewayError(value: unknown): GatewayError {
  if (value instanceof GatewayError) return value;
  return GatewayError.internal("internal error (see the gateway log for this request id)", value);
}

/** Parses an HTTP `retry-after` (seconds or HTTP date) or `retry-after-ms` header into milliseconds. */
export function parseRetryAfter(retryAfter: string | null | undefined, retryAfterMs?: string | null): number | undefined {
  if (retryAfterMs) {
    const ms = Number(retryAfterMs);
    if (Number.isFinite(ms) && ms >= 0) return ms;
  }
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - Date.now());
}
