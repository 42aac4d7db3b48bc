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
export function readBodyText(c: Context, max: number): Promise<string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return readWebBody(c, max);
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > max) {
    incoming.resume();
    return Promise.reject(tooLarge(max));
  }
  // The reader's own promise, not an async function's around it (more promises and ticks).
  return readCapped(incoming, max);
}

/** Outside Node (no IncomingMessage): the web Request's body. */
async function readWebBody(c: Context, max: number): Promise<string> {
  const text = await c.req.text();
  if (Buffer.byteLength(text) > max) throw tooLarge(max);
  return text;
}

/**
 * The IncomingMessage's body, with listeners and one promise: `for await` over it made about eight
 * promises per request (the stream's async iterator), on every request of every door.
 */
function readCapped(incoming: IncomingMessage, max: number): Promise<string> {
  // Read already (nothing more will come), as the iterator would have found it.
  if (incoming.readableEnded) return Promise.resolve("");
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        stop();
        // The rest of the upload is read and dropped, so that the client gets the 413.
        incoming.resume();
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size).toString("utf8"));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // Closed before its end was read (the client gone, even after sending the whole body while
    // an earlier middleware waited): the end will never come. Rejected with the socket's own
    // error where there is one, as the stream's async iterator did.
    const onClose = () => {
      if (incoming.readableEnded) return;
      stop();
      reject(incoming.errored ?? Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" }));
    };
    const stop = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    incoming.on("data", onData);
    incoming.once("end", onEnd);
    incoming.once("error", onError);
    incoming.once("close", onClose);
    if (incoming.destroyed) onClose();
  });
}
