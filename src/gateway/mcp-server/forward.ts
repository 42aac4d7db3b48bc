/**
 * Forwards one downstream request to an upstream server: same params (names mapped by the
 * caller), the downstream abort signal cancels the upstream request, and upstream progress is
 * relayed with the downstream client's own progress token.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { AnySchema, SchemaOutput } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { relayError } from "./errors.ts";
import type { RequestExtra } from "./types.ts";

type Params = Record<string, unknown> & { _meta?: Record<string, unknown> };

/** The downstream progress token of a request, if the client asked for progress. */
export function progressTokenOf(params: unknown): string | number | undefined {
  const token = (params as Params | undefined)?._meta?.progressToken;
  return typeof token === "string" || typeof token === "number" ? token : undefined;
}

/** `params` without the downstream progress token (the SDK adds its own upstream). */
function withoutProgressToken(params: Params | undefined): Params | undefined {
  if (!params?._meta || !("progressToken" in params._meta)) return params;
  const { progressToken: _dropped, ...meta } = params._meta;
  const { _meta: _old, ...rest } = params;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}

/** Sends `notifications/progress` to the downstream client for its token. */
export function progressRelay(extra: RequestExtra, token: string | number): (progress: Progress) => void {
  return (progress) => {
    extra.sendNotification({ method: "notifications/progress", params: { ...progress, progressToken: token } }).catch(() => undefined);
  };
}

export async function forwardRequest<S extends AnySchema>(
  client: Client,
  method: string,
  params: Params | undefined,
  schema: S,
  extra: RequestExtra,
  timeoutMs: number,
): Promise<SchemaOutput<S>> {
  const token = progressTokenOf(params);
  const forwarded = withoutProgressToken(params);
  const options: RequestOptions = {
    signal: extra.signal,
    timeout: timeoutMs,
    ...(token === undefined ? {} : { onprogress: progressRelay(extra, token), resetTimeoutOnProgress: true }),
  };
  try {
    return await client.request({ method, ...(forwarded === undefined ? {} : { params: forwarded }) } as never, schema, options);
  } catch (error) {
    throw relayError(error);
  }
}
