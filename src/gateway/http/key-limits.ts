/**
 * The per-key limits on `/v1`: a key with `rpm` or `tpm` gets OpenAI's `x-ratelimit-*` headers on
 * every answer, and a 429 with `retry-after` (in the route's error shape) once over a limit. The
 * routes that call a model count as requests; the others only read the counters.
 */
import type { MiddlewareHandler } from "hono";
import type { GatewayConfig } from "../../core/config/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { KeyLimits } from "../shared/key-limits.ts";
import { hasLimits, policyOf } from "../shared/keys.ts";
import { callerKey } from "./auth.ts";
import { errorResponse } from "./errors.ts";
import { requestIdOf } from "./request-id.ts";

/** The routes whose requests count against a key's `rpm` (POST). */
const COUNTED = new Set(["/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/embeddings"]);

/** Whether any key has `rpm` or `tpm` (else the gate is not mounted at all). */
export function keyLimitsOn(config: GatewayConfig): boolean {
  return config.gateway.keyPolicies.some(hasLimits);
}

export function keyLimitsGate(config: GatewayConfig, limits: KeyLimits, logger: Logger): MiddlewareHandler {
  if (!keyLimitsOn(config)) return (_c, next) => next();
  return async (c, next) => {
    const policy = policyOf(config, callerKey(c));
    if (!hasLimits(policy)) return next();
    const counted = c.req.method === "POST" && COUNTED.has(c.req.path.replace(/\/+$/, ""));
    const admission = await limits.admit(policy, counted);
    if (admission.refused) {
      logger.info({ requestId: requestIdOf(c), key: policy.name, path: c.req.path }, "refused: over the key's rate limit");
      const response = errorResponse(c, admission.refused);
      for (const [name, value] of Object.entries(admission.headers)) response.headers.set(name, value);
      return response;
    }
    await next();
    for (const [name, value] of Object.entries(admission.headers)) c.res.headers.set(name, value);
  };
}
