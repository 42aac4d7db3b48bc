/**
 * Clear refusals for what is too big or too much: concurrent requests beyond the cap get 429
 * with retry-after (no queue that grows without bound), JSON nested too deep or with huge
 * arrays gets 400 before any work is done.
 */
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../../core/index.ts";
import { errorResponse } from "./errors.ts";

export interface JsonLimits {
  maxJsonDepth: number;
  maxArrayLength: number;
}

/** Counts requests in flight (until the response body is fully sent) and sheds the excess. */
export function concurrencyCap(max: number): MiddlewareHandler {
  let inFlight = 0;
  return async (c, next) => {
    if (inFlight >= max) {
      return errorResponse(
        c,
        new GatewayError(`The gateway is at its limit of ${max} concurrent requests; retry shortly`, {
          status: 429,
          type: "rate_limit_error",
          code: "too_many_concurrent_requests",
          retryAfterMs: 1000,
        }),
      );
    }
    inFlight++;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        inFlight--;
      }
    };
    // On Node, the request counts until its socket response is done (a stream's end or the
    // client leaving) — observed on the ServerResponse, without wrapping the body, which would
    // cost every response a stream pipe.
    const outgoing = (c.env as { outgoing?: { once(event: "close", listener: () => void): void } } | undefined)?.outgoing;
    outgoing?.once("close", release);
    try {
      await next();
    } catch (error) {
      release();
      throw error;
    }
    if (!outgoing) release(); // not on Node (in-process app.fetch): count only the handler
  };
}

/**
 * The first place where `value` breaks the depth or array-size limit, as a JSON path, or
 * undefined. Iterative, so hostile nesting cannot overflow the stack.
 */
export function jsonShapeProblem(value: unknown, limits: JsonLimits): { path: string; message: string } | undefined {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: "" }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if (typeof item.value !== "object" || item.value === null) continue;
    if (item.depth >= limits.maxJsonDepth) return { path: item.path, message: `nested deeper than ${limits.maxJsonDepth} levels` };
    if (Array.isArray(item.value)) {
      if (item.value.length > limits.maxArrayLength) return { path: item.path, message: `array longer than ${limits.maxArrayLength} items` };
      item.value.forEach((child, i) => stack.push({ value: child, depth: item.depth + 1, path: `${item.path}[${i}]` }));
    } else {
      for (const [key, child] of Object.entries(item.value)) stack.push({ value: child, depth: item.depth + 1, path: item.path ? `${item.path}.${key}` : key });
    }
  }
  return undefined;
}
