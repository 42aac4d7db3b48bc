import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { GatewayError } from "../../core/index.ts";
import { errorResponse } from "./errors.ts";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * `Authorization: Bearer <key>` against the configured gateway keys. Keys are compared as
 * SHA-256 digests with timingSafeEqual, so neither content nor length leaks through timing.
 */
export function bearerAuth(keys: readonly string[]): MiddlewareHandler {
  const expected = keys.map(digest);
  return async (c, next) => {
    if (expected.length === 0) return next();
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const given = match ? digest(match[1]!.trim()) : undefined;
    let ok = false;
    for (const key of expected) if (given && timingSafeEqual(key, given)) ok = true;
    if (!ok) {
      return errorResponse(
        c,
        new GatewayError(match ? "Invalid API key" : "Missing API key: send Authorization: Bearer <key>", {
          status: 401,
          type: "authentication_error",
          code: "invalid_api_key",
        }),
      );
    }
    return next();
  };
}
