/**
 * The transport's whole-answer reader (undici `dispatch` with its own handler) against a real
 * local HTTP server: what it hands over, and each way a call can fail.
 */
import { describe, expect, it } from "vitest";
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { getEventListeners } from "node:events";
import { errors } from "undici";
import { BodyFailure, wholeAnswer } from "../../src/adapters/whole-answer.ts";
import { undiciUpstream } from "../helpers/undici-upstream.ts";

const upstream = undiciUpstream();
const { dispatcher } = upstream;

const post = (body = "{}") => ({ origin: upstream.origin, path: "/v1/x", method: "POST" as const, headers: { "content-type": "application/json" }, body });

describe("wholeAnswer", () => {
  it("hands over the status, the parsed headers and every chunk of the body, in order", async () => {
    const exchange = upstream.nextResponse();
    const answer = wholeAnswer(dispatcher, post(), undefined);
    const res = await exchange;
    res.writeHead(201, { "content-type": "application/json; charset=utf-8", "x-one": "1" });
    res.write('{"a":');
    res.write('"é",');
    res.end('"b":[1,2]}');
    const { status, headers, body } = await answer;
    expect(status).toBe(201);
    expect(headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(headers["x-one"]).toBe("1");
    expect(JSON.parse(body.toString("utf8"))).toEqual({ a: "é", b: [1, 2] });
  });

  it("reads an empty body as an empty buffer", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    const answer = await wholeAnswer(dispatcher, post(), undefined);
    expect(answer.status).toBe(204);
    expect(answer.body.length).toBe(0);
  });

  it("a signal aborted before the call: rejected with its reason, nothing sent", async () => {
    let sent = 0;
    upstream.handle((_req, res) => {
      sent++;
      res.end();
    });
    const controller = new AbortController();
    const reason = new Error("client gone");
    controller.abort(reason);
    await expect(wholeAnswer(dispatcher, post(), controller.signal)).rejects.toBe(reason);
    // A request after it reaches the server: the aborted one never did.
    await wholeAnswer(dispatcher, post(), undefined);
    expect(sent).toBe(1);
  });

  it("aborted while waiting for the headers: rejected with the reason, and the server sees the connection close", async () => {
    const exchange = upstream.nextResponse();
    const controller = new AbortController();
    const answer = wholeAnswer(dispatcher, post(), controller.signal);
    const res = await exchange;
    const closed = new Promise<void>((resolve) => res.socket!.once("close", () => resolve()));
    const reason = new Error("deadline");
    controller.abort(reason);
    await expect(answer).rejects.toBe(reason);
    await closed;
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("aborted while the body comes: a BodyFailure with the reason and the head already in", async () => {
    const exchange = upstream.nextResponse();
    const controller = new AbortController();
    const answer = wholeAnswer(dispatcher, post(), controller.signal);
    const res = await exchange;
    res.writeHead(200, { "content-type": "application/json" });
    const reason = new Error("client gone");
    // Aborted once undici has read the head (it publishes it, then hands it to the handler).
    const onHeaders = () => setImmediate(() => controller.abort(reason));
    subscribe("undici:request:headers", onHeaders);
    try {
      res.write('{"partial":');
      const failure = await answer.catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(BodyFailure);
      expect((failure as BodyFailure).cause).toBe(reason);
      expect((failure as BodyFailure).status).toBe(200);
      expect((failure as BodyFailure).headers["content-type"]).toBe("application/json");
    } finally {
      unsubscribe("undici:request:headers", onHeaders);
    }
  });

  it("the server cutting the body: a BodyFailure caused by undici's socket error", async () => {
    const exchange = upstream.nextResponse();
    const answer = wholeAnswer(dispatcher, post(), undefined);
    const res = await exchange;
    res.writeHead(502, { "content-type": "application/json", "content-length": "100" });
    res.write('{"error":');
    setImmediate(() => res.socket!.destroy());
    const failure = await answer.catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BodyFailure);
    expect((failure as BodyFailure).status).toBe(502);
    expect((failure as BodyFailure).cause).toBeInstanceOf(errors.SocketError);
  });

  it("no answer within headersTimeout: undici's HeadersTimeoutError, not a BodyFailure", async () => {
    const exchange = upstream.nextResponse();
    const answer = wholeAnswer(dispatcher, { ...post(), headersTimeout: 50 }, undefined);
    const res = await exchange;
    await expect(answer).rejects.toBeInstanceOf(errors.HeadersTimeoutError);
    res.end();
  });

  it("leaves no listener on the caller's signal once the answer is in", async () => {
    upstream.handle((_req, res) => void res.end("{}"));
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) await wholeAnswer(dispatcher, post(), controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
