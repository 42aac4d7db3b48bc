/**
 * The transport's stream reader (undici `dispatch` with a handler that is also the body's
 * ByteSource) against a real local HTTP server: what reads hand over, backpressure, and each way
 * a stream can end.
 */
import { describe, expect, it } from "vitest";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { getEventListeners } from "node:events";
import type { ServerResponse } from "node:http";
import { errors } from "undici";
import { openStream, type StreamHead } from "../../src/adapters/streamed-answer.ts";
import type { ByteSource } from "../../src/adapters/sse-events.ts";
import { undiciUpstream } from "../helpers/undici-upstream.ts";

const upstream = undiciUpstream();
const { dispatcher } = upstream;

const post = { path: "/v1/stream", method: "POST" as const, headers: { "content-type": "application/json" }, body: "{}" };
const options = () => ({ ...post, origin: upstream.origin });
/** What the transport passes: the failure as fetch would report it (here: tagged, to be recognised). */
const tag = (error: unknown) => ({ tagged: error });


/** A stream opened with `signal`, its head (an event stream) in, and the server's response to drive. */
async function openedEventStream(signal?: AbortSignal): Promise<{ res: ServerResponse; head: StreamHead }> {
  const exchange = upstream.nextResponse();
  const opening = openStream(dispatcher, options(), signal, tag);
  const res = await exchange;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.flushHeaders();
  return { res, head: await opening };
}

/** Writes `text` and resolves once the server's socket has handed it to the kernel. */
const written = (res: ServerResponse, text: string) => new Promise<void>((resolve) => res.write(text, () => resolve()));

async function readText(body: ByteSource): Promise<string> {
  let text = "";
  for (let read = await body.read(); !read.done; read = await body.read()) text += Buffer.from(read.value).toString("utf8");
  return text;
}

describe("openStream", () => {
  it("opens once the head is in, then hands each chunk to the read waiting for it, and ends", async () => {
    const exchange = upstream.nextResponse();
    const opening = openStream(dispatcher, options(), undefined, tag);
    const res = await exchange;
    res.writeHead(200, { "content-type": "text/event-stream", "x-one": "1" });
    res.flushHeaders();
    const head = await opening;
    expect(head.status).toBe(200);
    expect(head.headers["content-type"]).toBe("text/event-stream");
    const first = head.body.read();
    await written(res, "data: 1\n\n");
    expect(Buffer.from((await first).value as Uint8Array).toString()).toBe("data: 1\n\n");
    const second = head.body.read();
    res.end("data: 2\n\n");
    expect(Buffer.from((await second).value as Uint8Array).toString()).toBe("data: 2\n\n");
    expect(await head.body.read()).toEqual({ done: true, value: undefined });
    expect(await head.body.read()).toEqual({ done: true, value: undefined });
  });

  it("chunks that came while nobody read are handed over together, in order", async () => {
    const exchange = upstream.nextResponse();
    const opening = openStream(dispatcher, options(), undefined, tag);
    const res = await exchange;
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (let i = 0; i < 20; i++) res.write(`data: ${i}\n\n`);
    res.end();
    const head = await opening;
    const expected = Array.from({ length: 20 }, (_, i) => `data: ${i}\n\n`).join("");
    expect(await readText(head.body)).toBe(expected);
  });

  it("a body far larger than its high-water mark arrives whole while the reader is slow (paused, then resumed)", async () => {
    const exchange = upstream.nextResponse();
    const opening = openStream(dispatcher, options(), undefined, tag);
    const res = await exchange;
    const piece = "x".repeat(16 * 1024);
    res.writeHead(200, { "content-type": "application/octet-stream" });
    res.flushHeaders();
    const head = await opening;
    // Written in full before the first read: the handler must pause the socket and resume it.
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 128; i++) writes.push(written(res, piece));
    res.end();
    let length = 0;
    let largest = 0;
    for (let read = await head.body.read(); !read.done; read = await head.body.read()) {
      length += read.value.length;
      largest = Math.max(largest, read.value.length);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(length).toBe(128 * piece.length);
    // Paused at 64 KB queued: a read takes at most that and one more socket read (without the
    // pause, a slow reader's read took hundreds of KB at once).
    expect(largest).toBeLessThanOrEqual(192 * 1024);
    await Promise.all(writes);
  });

  it("aborted before the head: rejected with the signal's reason", async () => {
    const exchange = upstream.nextResponse();
    const controller = new AbortController();
    const opening = openStream(dispatcher, options(), controller.signal, tag);
    const res = await exchange;
    const reason = new Error("client gone");
    controller.abort(reason);
    await expect(opening).rejects.toBe(reason);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    res.destroy();
  });

  it("aborted while a read waits: the read rejects with the failure made of the reason, and the connection is closed", async () => {
    const controller = new AbortController();
    const { res, head } = await openedEventStream(controller.signal);
    const closed = new Promise<void>((resolve) => res.socket!.once("close", () => resolve()));
    const read = head.body.read();
    const reason = new Error("idle");
    controller.abort(reason);
    await expect(read).rejects.toEqual({ tagged: reason });
    await closed;
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("cancel() rejects a waiting read, closes the connection and leaves the signal alone", async () => {
    const controller = new AbortController();
    const { res, head } = await openedEventStream(controller.signal);
    const closed = new Promise<void>((resolve) => res.socket!.once("close", () => resolve()));
    const read = head.body.read();
    head.body.cancel();
    await expect(read).rejects.toMatchObject({ tagged: expect.any(Error) });
    await closed;
    expect(controller.signal.aborted).toBe(false);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("the server cutting the body: the read rejects with the failure made of undici's socket error", async () => {
    const exchange = upstream.nextResponse();
    const opening = openStream(dispatcher, options(), undefined, tag);
    const res = await exchange;
    res.writeHead(200, { "content-type": "text/event-stream" });
    await written(res, "data: 1\n\n");
    const head = await opening;
    expect(Buffer.from((await head.body.read()).value as Uint8Array).toString()).toBe("data: 1\n\n");
    const read = head.body.read();
    res.socket!.destroy();
    const failure = (await read.catch((error: unknown) => error)) as { tagged: unknown };
    expect(failure.tagged).toBeInstanceOf(errors.SocketError);
  });

  it("bytes queued when the body fails are dropped: the next read rejects, as a destroyed Readable's", async () => {
    const controller = new AbortController();
    const { res, head } = await openedEventStream(controller.signal);
    // Queued (nobody reads) once undici has parsed it: seen on the diagnostics channel's body event.
    const parsed = new Promise<void>((resolve) => {
      const onBody = () => {
        unsubscribe("undici:request:bodyChunkReceived", onBody);
        setImmediate(resolve);
      };
      subscribe("undici:request:bodyChunkReceived", onBody);
    });
    await written(res, "data: 1\n\n");
    await parsed;
    const reason = new Error("client gone");
    controller.abort(reason);
    await expect(head.body.read()).rejects.toEqual({ tagged: reason });
  });

  it("no head within headersTimeout: undici's HeadersTimeoutError", async () => {
    const exchange = upstream.nextResponse();
    const opening = openStream(dispatcher, { ...options(), headersTimeout: 50 }, undefined, tag);
    const res = await exchange;
    await expect(opening).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    res.destroy();
  });
});
