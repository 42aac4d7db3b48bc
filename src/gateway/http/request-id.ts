import { randomUUID } from "node:crypto";

/** A client's x-request-id when it is a sane token, else a fresh one. */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[\w.:-]{1,128}$/.test(header) ? header : randomUUID();
}
