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
 * of a reset connection. A body already whole in memory is returned as is, not as a Promise.
 */
export function readBodyText(c: Context, max: number): string | Promise<string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming) return readWebBody(c, max);
  const buffered = bufferedBody(incoming, max);
  if (buffered !== undefined) return buffered;
  const declared = Number(incoming.headers["content-length"] ?? Number.NaN);
  if (declared > max) {
    incoming.resume();
    return Promise.reject(tooLarge(max));
  }
  // The gateway's handler starts in the server's 'request' event, before the parser has gone on
  // to the body; once the packet is parsed (a microtask later), a small body that came with its
  // head is whole in the buffer. The reader's own promise otherwise, not an async function's
  // around it (more promises and ticks).
  return parsed.then(() => bufferedBody(incoming, max) ?? readCapped(incoming, max));
}

/** Resolved: what a read waits on for the parser to finish the packet it is in. */
const parsed = Promise.resolve();

/**
 * The body when the parser has already read all of it (a small body comes in the packet of its
 * head: by the time the handler runs, it and its end are in the stream's buffer), taken in one
 * read: no listeners, no Promise, and none of the stream's turns through the tick queue before
 * 'data' and 'end' (three per request). Undefined when the body must be waited for, someone else
 * reads it, or it is over the cap (the reader below refuses it as it always has).
 */
function bufferedBody(incoming: IncomingMessage, max: number): string | undefined {
  const length = incoming.readableLength;
  // Whole: the parser reached the message's end, or holds as many bytes as its content-length (of
  // a body not chunked: an insecure parser may take chunks beside a content-length, and the chunks count).
  const whole = incoming.complete || (length > 0 && incoming.headers["transfer-encoding"] === undefined && length === Number(incoming.headers["content-length"]));
  if (!whole || incoming.destroyed || incoming.readableFlowing !== null || length > max) return undefined;
  // Not flowing: read() returns everything buffered, one Buffer (null when the body is empty).
  const bytes = incoming.read() as Buffer | null;
  // On to the stream's end ('end', then 'close'), as a reader that took every chunk goes.
  incoming.resume();
  return bytes === null ? "" : bytes.toString("utf8");
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
