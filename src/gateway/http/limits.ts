/**
 * Clear refusals for what is too big or too much: concurrent requests beyond the cap get 429
 * with retry-after (no queue that grows without bound), JSON nested too deep or with huge
 * arrays gets 400 before any work is done.
 */
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../../core/index.ts";
import { answerWatch } from "./client-gone.ts";
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
    // cost every response a stream pipe; at once when the client left during an earlier
    // middleware's await (its 'close' is past: client-gone.ts).
    const watch = answerWatch(c);
    watch?.(release);
    try {
      await next();
    } catch (error) {
      release();
      throw error;
    }
    if (!watch) release(); // not on Node (in-process app.fetch): count only the handler
  };
}

/** A node of the walk; the path is rebuilt from parent links only when a limit is broken. */
interface Visit {
  value: unknown;
  depth: number;
  key: string | number | undefined;
  parent: Visit | undefined;
}

function pathOf(visit: Visit): string {
  const parts: (string | number)[] = [];
  for (let v: Visit | undefined = visit; v?.key !== undefined; v = v.parent) parts.unshift(v.key);
  return parts.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

const capsByConfig = new WeakMap<object, MiddlewareHandler>();

/**
 * The one concurrency cap of a gateway (per config): `/v1` and `/mcp` share its count, so
 * together they never exceed `gateway.maxConcurrentRequests`.
 */
export function gatewayConcurrencyCap(config: { gateway: { maxConcurrentRequests: number } }): MiddlewareHandler {
  let cap = capsByConfig.get(config);
  if (!cap) {
    cap = concurrencyCap(config.gateway.maxConcurrentRequests);
    capsByConfig.set(config, cap);
  }
  return cap;
}

/**
 * The first place where `value` breaks the depth or array-size limit, as a JSON path, or
 * undefined. Iterative, so hostile nesting cannot overflow the stack; no strings are built for
 * the (usual) bodies that pass.
 */
export function jsonShapeProblem(value: unknown, limits: JsonLimits): { path: string; message: string } | undefined {
  const stack: Visit[] = [{ value, depth: 0, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const current = visit.value;
    if (typeof current !== "object" || current === null) continue;
    if (visit.depth >= limits.maxJsonDepth) return { path: pathOf(visit), message: `nested deeper than ${limits.maxJsonDepth} levels` };
    if (Array.isArray(current)) {
      if (current.length > limits.maxArrayLength) return { path: pathOf(visit), message: `array longer than ${limits.maxArrayLength} items` };
      for (let i = 0; i < current.length; i++) stack.push({ value: current[i], depth: visit.depth + 1, key: i, parent: visit });
    } else {
      for (const key of Object.keys(current)) stack.push({ value: (current as Record<string, unknown>)[key], depth: visit.depth + 1, key, parent: visit });
    }
  }
  return undefined;
}
