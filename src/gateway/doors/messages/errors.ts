/**
 * Errors in Anthropic's shape: `{"type":"error","error":{"type","message"},"request_id"}`, with
 * the error types Anthropic clients act on (Claude Code retries 429/529/5xx and says what a 401
 * means).
 */
import type { GatewayError } from "../../../core/index.ts";
import type { ErrorFormat } from "../../http/errors.ts";

export type AnthropicErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "request_too_large"
  | "rate_limit_error"
  | "api_error"
  | "timeout_error"
  | "overloaded_error";

export function anthropicErrorType(error: GatewayError): AnthropicErrorType {
  if (error.status === 413) return "request_too_large";
  if (error.status === 529) return "overloaded_error";
  switch (error.type) {
    case "invalid_request_error":
    case "authentication_error":
    case "permission_error":
    case "not_found_error":
    case "rate_limit_error":
    case "timeout_error":
    case "overloaded_error":
      return error.type;
    case "api_error":
      return "api_error";
  }
}

export function anthropicErrorBody(error: GatewayError, requestId: string | undefined): object {
  return { type: "error", error: { type: anthropicErrorType(error), message: error.message }, request_id: requestId ?? null };
}

export const anthropicErrorFormat: ErrorFormat = anthropicErrorBody;
