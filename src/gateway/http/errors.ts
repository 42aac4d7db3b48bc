import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { GatewayError, toGatewayError } from "../../core/index.ts";
import type { FieldProblem } from "../../core/zod-issues.ts";

/** Any failure as an OpenAI-shaped JSON error response with its status. */
export function errorResponse(c: Context, error: unknown): Response {
  const failure = toGatewayError(error);
  const headers: Record<string, string> = {};
  if (failure.retryAfterMs !== undefined) headers["retry-after"] = String(Math.ceil(failure.retryAfterMs / 1000));
  const status = (failure.status >= 400 && failure.status <= 599 ? failure.status : 500) as ContentfulStatusCode;
  return c.json(failure.toJSON(), status, headers);
}

/** Validation problems as one 400 naming the first bad field (the message lists them all). */
export function invalidRequest(problems: FieldProblem[]): GatewayError {
  const first = problems[0];
  const message = problems.map((p) => `${p.path || "body"}: ${p.message}`).join("; ");
  return GatewayError.invalidRequest(`Invalid request: ${message}`, first?.path || undefined, "invalid_value");
}
