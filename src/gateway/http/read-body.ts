import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { GatewayError } from "../../core/index.ts";

function tooLarge(max: number): GatewayError {
  return new GatewayError(`The request body is larger than ${max} bytes`, { status: 413, type: "invalid_request_error", code: "request_too_large" });
}

/**
 * The request body as text, refused with 413 beyond `max` bytes. On Node it reads the
 * IncomingMessage directly — no web Request, stream or AbortController per request — and,
 * when refusing, keeps discarding the rest of the upload so the client gets the 413 instead
 * of a reset connection.
 */
export async function readBodyText(c: Context, max: number): Promise<string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > max) throw tooLarge(max);
    return text;
  }
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > max) {
    incoming.resume();
    throw tooLarge(max);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > max) {
      incoming.resume();
      throw tooLarge(max);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
