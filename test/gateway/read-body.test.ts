/**
 * readBodyText on a real node:http server: the body whole however it is cut, the 413 beyond the
 * cap (with the rest of the upload drained, so the client reads the answer), and a client that
 * goes away mid-upload ending the read instead of leaving it pending.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import type { Context } from "hono";
import { readBodyText } from "../../src/gateway/http/read-body.ts";

const MAX = 64;
let server: Server;
let port = 0;
/** How each request's read ended: its text, or its error's message. */
const outcomes: Promise<string>[] = [];
/** For each read on "/parsed": whether the body came at once (not as a Promise). */
const atOnce: boolean[] = [];
/** Paths of the requests whose stream emitted 'end' after such a read. */
const ended: string[] = [];
/** Paths of the requests the server has seen (read from the 'request' event on). */
const arrived: string[] = [];
/** Paths of the requests whose body was read through the stream's 'data' events, not from its buffer. */
const streamed = new Set<string>();

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    // "/late": the read starts only once the client is gone (as after a middleware that waited).
    if (req.url === "/late") {
      // After the request's own close: its error, if any, was emitted already.
      req.once("close", () => {
        outcomes.push(Promise.resolve(readBodyText({ env: { incoming: req } } as unknown as Context, MAX)).then((text) => `text:${text}`, (error: Error) => `error:${error.message}`));
      });
      return;
    }
    // "/parsed": the read starts once the packet the request came in is parsed (a turn of the loop later).
    if (req.url === "/parsed") {
      setImmediate(() => {
        const read = readBodyText({ env: { incoming: req } } as unknown as Context, MAX);
        atOnce.push(typeof read === "string");
        // The stream still goes on to its end after a read that took the body at once.
        req.once("end", () => ended.push(req.url ?? ""));
        answer(res, Promise.resolve(read));
      });
      return;
    }
    // As the gateway's handler does: the read starts in the 'request' event, before the body is parsed.
    const on = req.on.bind(req);
    req.on = ((event: string, listener: (...args: unknown[]) => void) => {
      if (event === "data") streamed.add(req.url ?? "");
      return on(event, listener);
    }) as typeof req.on;
    answer(res, Promise.resolve(readBodyText({ env: { incoming: req } } as unknown as Context, MAX)));
    arrived.push(req.url ?? "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

/** Records how the read ended and answers with it: what was read, or the error's status and message. */
function answer(res: ServerResponse, read: Promise<string>): void {
  outcomes.push(read.then((text) => `text:${text}`, (error: Error) => `error:${error.message}`));
  read.then(
      (text) => res.end(`read ${Buffer.byteLength(text)} bytes: ${text}`),
      (error: { status?: number; message: string }) => res.writeHead(error.status ?? 500).end(error.message),
  );
}

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** `text` written to the server in one write; everything it answers, until it closes the connection. */
function exchange(serverPort: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(serverPort, "127.0.0.1", () => socket.write(text));
    let reply = "";
    socket.on("data", (chunk: Buffer) => (reply += chunk.toString("utf8")));
    socket.on("end", () => resolve(reply));
    socket.on("error", reject);
  });
}

/** The bodies of the answers in a reply of several (each answer's body is what it read). */
function answers(reply: string): string[] {
  return [...reply.matchAll(/read \d+ bytes: [a-z]*/g)].map((match) => match[0]);
}

/** A chunked POST (no content-length) written in the given pieces; the status and body of the answer. */
function post(pieces: Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method: "POST", path: "/" }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    for (const piece of pieces) req.write(piece);
    req.end();
  });
}

describe("readBodyText", () => {
  it("reads a chunked body whole, a character cut between two chunks included", async () => {
    const bytes = Buffer.from('{"text":"naïve café"}');
    const cut = bytes.indexOf(Buffer.from("ï")) + 1;
    const answer = await post([bytes.subarray(0, cut), bytes.subarray(cut)]);
    expect(answer).toEqual({ status: 200, body: `read ${bytes.length} bytes: {"text":"naïve café"}` });
  });

  it("takes a body that came whole with its head at once, and the stream still ends", async () => {
    const body = '{"text":"naïve"}';
    const head = `POST /parsed HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    // The head and the body in one write: one packet, parsed whole before the next turn of the loop.
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(head + body));
      let text = "";
      socket.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply.endsWith(`read ${Buffer.byteLength(body)} bytes: ${body}`)).toBe(true);
    expect(atOnce.at(-1)).toBe(true);
    await expect.poll(() => ended).toContain("/parsed");
  });

  it("waits for the rest of a body whose content-length is not all there yet", async () => {
    const body = Buffer.from('{"text":"in two parts"}');
    const before = arrived.length;
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/two-parts", headers: { "content-length": String(body.length) } }, (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on("error", reject);
      req.write(body.subarray(0, 9));
      // The rest only once the server has the request and its first part.
      expect.poll(() => arrived.length).toBe(before + 1).then(() => req.end(body.subarray(9)), reject);
    });
    expect(await answered).toEqual({ status: 200, body: `read ${body.length} bytes: ${body.toString("utf8")}` });
    // Not whole when the handler asked: read as it came.
    expect(streamed.has("/two-parts")).toBe(true);
  });

  it("answers requests sent one after the other in one packet, each with its own body", async () => {
    const body = (text: string) => `Content-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`;
    const reply = await exchange(
      port,
      `POST /first HTTP/1.1\r\nHost: h\r\n${body("first")}` +
        `GET / HTTP/1.1\r\nHost: h\r\n\r\n` +
        `POST / HTTP/1.1\r\nHost: h\r\n${body("")}` +
        `POST /second HTTP/1.1\r\nHost: h\r\nConnection: close\r\n${body("second")}`,
    );
    expect(answers(reply)).toEqual(["read 5 bytes: first", "read 0 bytes: ", "read 0 bytes: ", "read 6 bytes: second"]);
    // Each body that came with its head was taken from the buffer, none through 'data' events.
    expect([streamed.has("/first"), streamed.has("/second")]).toEqual([false, false]);
  });

  it("reads a chunked body that came whole with its head to its last chunk", async () => {
    const reply = await exchange(port, "POST / HTTP/1.1\r\nHost: h\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
    expect(answers(reply)).toEqual(["read 5 bytes: abcde"]);
  });

  it("counts the chunks, not a content-length beside them, where an insecure parser takes both", async () => {
    const lenient = createServer({ insecureHTTPParser: true }, (req, res) => answer(res, Promise.resolve(readBodyText({ env: { incoming: req } } as unknown as Context, MAX))));
    await new Promise<void>((resolve) => lenient.listen(0, "127.0.0.1", resolve));
    try {
      const reply = await exchange((lenient.address() as AddressInfo).port, "POST / HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n");
      expect(answers(reply)).toEqual(["read 5 bytes: abcde"]);
    } finally {
      lenient.closeAllConnections();
      await new Promise<void>((resolve) => lenient.close(() => resolve()));
    }
  });

  it("refuses a body over the cap with 413 and drains the rest, so that the client gets the answer", async () => {
    const answer = await post([Buffer.alloc(40, "a"), Buffer.alloc(40, "b"), Buffer.alloc(4096, "c")]);
    expect(answer.status).toBe(413);
    expect(answer.body).toBe(`The request body is larger than ${MAX} bytes`);
  });

  it("ends the read when the client goes away mid-upload", async () => {
    const before = outcomes.length;
    await new Promise<void>((resolve) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/", headers: { "content-length": "50" } });
      req.on("error", () => resolve());
      req.write("only part of it", () => req.destroy());
      req.on("close", () => resolve());
    });
    // Wait for the server to have seen the request, then for its read to settle.
    await expect.poll(() => outcomes.length).toBe(before + 1);
    expect(await outcomes[before]).toMatch(/^error:/);
  });

  it("ends the read of a whole body whose client went away before the read started", async () => {
    const before = outcomes.length;
    await new Promise<void>((resolve) => {
      const req = request({ host: "127.0.0.1", port, method: "POST", path: "/late", headers: { "content-length": "5" } });
      req.on("error", () => resolve());
      req.on("close", () => resolve());
      // The whole body, then the connection closed without waiting for an answer.
      req.end("hello", () => req.destroy());
    });
    await expect.poll(() => outcomes.length).toBe(before + 1);
    expect(await outcomes[before]).toMatch(/^error:/);
  });
});
