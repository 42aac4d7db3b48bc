import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { GatewayError } from "../../core/index.ts";
import type { Logger } from "../../core/logger.ts";
import { checkLayer, type Check } from "./admission.ts";
import { errorResponse } from "./errors.ts";
import { requestIdOf } from "./request-id.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/** Module-private: the key stays out of reach of anything that lists the context's variables by name. */
const CALLER_KEY = Symbol("caller key");

/**
 * The key the caller presented: `Authorization: Bearer <key>` (OpenAI clients, and Anthropic
 * clients with an auth token) or `x-api-key: <key>` (Anthropic clients with an API key).
 */
export function callerKey(c: Context): string | undefined {
  // Read once per request (the admission, the key's policy and the tenant each ask): null is "none".
  const known = c.get(CALLER_KEY as never) as string | null | undefined;
  if (known !== undefined) return known ?? undefined;
  const key = presentedKeyOf(c);
  c.set(CALLER_KEY as never, (key ?? null) as never);
  return key;
}

function presentedKeyOf(c: Context): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(c.req.header("authorization") ?? "")?.[1]?.trim();
  if (bearer) return bearer;
  const apiKey = c.req.header("x-api-key")?.trim();
  return apiKey === "" ? undefined : apiKey;
}

/**
 * The caller's key against the configured gateway keys. Keys are compared as SHA-256 digests
 * with timingSafeEqual, so neither content nor length leaks through timing.
 */
export function apiKeyAuth(keys: readonly string[], logger?: Logger): MiddlewareHandler {
  return checkLayer(keyCheck(keys, logger));
}

/** apiKeyAuth's check alone, to run inside another layer (./admission.ts). */
export function keyCheck(keys: readonly string[], logger?: Logger): Check {
  const expected = keys.map(digest);
  return (c) => {
    if (expected.length === 0) return undefined;
    const key = callerKey(c);
    const given = key === undefined ? undefined : digest(key);
    let ok = false;
    for (const candidate of expected) if (given && timingSafeEqual(candidate, given)) ok = true;
    if (ok) return undefined;
    // Said in the log each time: some clients (Claude Code) retry a 401 many times over.
    logger?.warn({ requestId: requestIdOf(c), path: c.req.path, presented: key !== undefined }, key !== undefined ? "refused: invalid API key" : "refused: no API key");
    return errorResponse(
      c,
      new GatewayError(key !== undefined ? "Invalid API key" : "Missing API key: send Authorization: Bearer <key> or x-api-key: <key>", {
        status: 401,
        type: "authentication_error",
        code: "invalid_api_key",
      }),
    );
  };
}
