import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { GatewayError, toGatewayError } from "../../core/index.ts";
import type { FieldProblem } from "../../core/zod-issues.ts";
import { requestIdOf } from "./request-id.ts";

/** A front door's error body: each client protocol has its own error shape. */
export type ErrorFormat = (error: GatewayError, requestId: string | undefined) => object;

const openaiFormat: ErrorFormat = (error) => error.toJSON();

/** Answers this route's errors (auth, limits, validation, upstream) in a door's shape. */
export function errorFormat(format: ErrorFormat): MiddlewareHandler {
  return async (c, next) => {
    c.set("errorFormat" as never, format as never);
    await next();
  };
}

/** Any failure as a JSON error response with its status, in the shape of the route's door (OpenAI's by default). */
export function errorResponse(c: Context, error: unknown): Response {
  const failure = toGatewayError(error);
  const headers: Record<string, string> = {};
  if (failure.retryAfterMs !== undefined) headers["retry-after"] = String(Math.ceil(failure.retryAfterMs / 1000));
  const status = (failure.status >= 400 && failure.status <= 599 ? failure.status : 500) as ContentfulStatusCode;
  const format = (c.get("errorFormat" as never) as ErrorFormat | undefined) ?? openaiFormat;
  // For the request's observation (metrics, the web view): what the gateway answered with.
  c.set("gatewayError" as never, failure as never);
  return c.json(format(failure, requestIdOf(c)), status, headers);
}

/** Validation problems as one 400 naming the first bad field (the message lists them all). */
export function invalidRequest(problems: FieldProblem[]): GatewayError {
  const first = problems[0];
  const message = problems.map((p) => `${p.path || "body"}: ${p.message}`).join("; ");
  return GatewayError.invalidRequest(`Invalid request: ${message}`, first?.path || undefined, "invalid_value");
}
