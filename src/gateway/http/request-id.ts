import { randomUUID } from "node:crypto";
import type { Context } from "hono";

/** The request's id, as the app's first middleware set it (src/gateway/http/app.ts). */
export function requestIdOf(c: Context): string | undefined {
  return c.get("requestId" as never) as string | undefined;
}

/** A client's x-request-id when it is a sane token, else a fresh one. */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
}
