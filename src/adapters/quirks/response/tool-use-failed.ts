/**
 * Groq answers 400 `tool_use_failed` ("Failed to call a function. Please adjust your prompt. See
 * 'failed_generation' for more details.") when the model's output was not a valid call: a bad
 * sample, which another try usually fixes. So it is retryable, and the failed generation goes
 * into the message, where whoever reads the error can see what the model wrote.
 */
import { GatewayError } from "../../../core/index.ts";

const CODE = "tool_use_failed";
/** Enough of the generation to see what went wrong, without flooding a log line. */
const MAX_SHOWN = 500;

function failedGeneration(cause: unknown): string | undefined {
  if (typeof cause !== "object" || cause === null || !("error" in cause)) return undefined;
  const body: unknown = cause.error;
  if (typeof body !== "object" || body === null || !("failed_generation" in body)) return undefined;
  const generation: unknown = body.failed_generation;
  return typeof generation === "string" ? generation : undefined;
}

export function retryableToolUseFailed(error: GatewayError): GatewayError {
  if (error.code !== CODE || error.retryable) return error;
  const generation = failedGeneration(error.cause);
  const shown = generation === undefined ? "" : ` (failed_generation: ${generation.slice(0, MAX_SHOWN)})`;
  return new GatewayError(`${error.message}${shown}`, {
    status: error.status,
    type: error.type,
    code: CODE,
    ...(error.param === undefined ? {} : { param: error.param }),
    ...(error.provider === undefined ? {} : { provider: error.provider }),
    retryable: true,
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    cause: error.cause,
  });
}
