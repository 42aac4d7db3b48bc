/**
 * Everything that can go wrong upstream ends as a typed GatewayError: never a hang, never a raw
 * SDK error, never an unhandled rejection.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { sendJson, startFakeUpstream, type FakeUpstream, type Handler } from "../../helpers/fake-upstream.ts";
import { anthropicSse, sendAnthropicError } from "../../helpers/anthropic-rules.ts";
import type { StreamEvent } from "../../../src/core/index.ts";
import { adapterAt, collect, completeError, lastResult, request, streamError, userText } from "./support.ts";

const ask = request([userText("Hello")]);

const head = [
  { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-haiku-4-5", content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } } },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
];
const tail = [
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
  { type: "content_block_stop", index: 0 },
  { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: "message_stop" },
];

function openSse(res: ServerResponse, text: string): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(text);
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let server: FakeUpstream;
let respond: Handler;

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  server = await startFakeUpstream((req, res) => respond(req, res));
});
afterAll(async () => {
  await server.close();
  // Give any stray promise a chance to reject before checking.
  await sleep(50);
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});
afterEach(() => {
  respond = (_req, res) => sendJson(res, 500, { error: "no handler" });
});

const types = (events: StreamEvent[]) => events.map((event) => event.type);

describe("broken streams", () => {
  it("a connection cut mid-stream (socket destroyed) is a retryable connection error after the events so far", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(head));
      setTimeout(() => res.socket?.destroy(), 30);
    };
    const { error, seen } = await streamError(adapterAt(server.url).stream(ask));
    expect(types(seen)).toEqual(["start", "text_start", "text_delta"]);
    expect(error.code).toBe("upstream_unreachable");
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
    expect(error.provider).toBe("anthropic");
  });

  it("a stream that ends cleanly before message_delta/message_stop is a protocol error", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(head));
      res.end();
    };
    const { error, seen } = await streamError(adapterAt(server.url).stream(ask));
    expect(seen.at(-1)).toEqual({ type: "text_delta", delta: "Hel" });
    expect(error.code).toBe("upstream_protocol_error");
    expect(error.message).toBe("anthropic: the stream ended before message_stop");
  });

  it("invalid JSON in a data line is a protocol error", async () => {
    respond = (_req, res) => {
      openSse(res, `${anthropicSse(head)}event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo}\n\n`);
      res.end(anthropicSse(tail));
    };
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error.code).toBe("upstream_protocol_error");
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^anthropic: invalid JSON from the provider/);
  });

  it("an overloaded_error event mid-stream is a retryable 529", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(head));
      res.end(`event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`);
    };
    const { error, seen } = await streamError(adapterAt(server.url).stream(ask));
    expect(types(seen)).toEqual(["start", "text_start", "text_delta"]);
    expect(error.status).toBe(529);
    expect(error.type).toBe("overloaded_error");
    expect(error.code).toBe("overloaded_error");
    expect(error.retryable).toBe(true);
    expect(error.message).toBe("anthropic: Overloaded");
  });

  it("an error payload under another event name is mapped the same way", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(head));
      res.end(`event: message_delta\ndata: {"type":"error","error":{"type":"api_error","message":"Internal server error"}}\n\n`);
    };
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error.status).toBe(500);
    expect(error.type).toBe("api_error");
    expect(error.retryable).toBe(true);
  });

  it("events out of protocol are a protocol error", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse([head[0]!, { type: "content_block_delta", index: 3, delta: { type: "text_delta", text: "?" } }]));
      res.end();
    };
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error.code).toBe("upstream_protocol_error");
    expect(error.message).toBe("anthropic: content_block_delta for block 3, which is not open");
  });

  it("content before message_start is a protocol error", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(tail));
      res.end();
    };
    const { error, seen } = await streamError(adapterAt(server.url).stream(ask));
    expect(seen).toEqual([]);
    expect(error.message).toBe("anthropic: content_block_delta before message_start");
  });
});

describe("HTTP errors", () => {
  it("529 overloaded: retryable, for complete and stream, with no SDK retry", async () => {
    respond = (_req, res) => sendAnthropicError(res, 529, "overloaded_error", "Overloaded");
    const before = server.requests.length;
    const adapter = adapterAt(server.url);
    for (const error of [await completeError(adapter.complete(ask)), (await streamError(adapter.stream(ask))).error]) {
      expect(error.status).toBe(529);
      expect(error.type).toBe("overloaded_error");
      expect(error.code).toBe("overloaded_error");
      expect(error.retryable).toBe(true);
      expect(error.message).toBe("anthropic: Overloaded");
    }
    expect(server.requests.length - before).toBe(2);
  });

  it("upstream 401/403 (the gateway's key for the provider): 502 naming the provider, not retryable, for complete and stream", async () => {
    const cases = [
      { status: 401, type: "authentication_error", code: "upstream_authentication_error" },
      { status: 403, type: "permission_error", code: "upstream_permission_error" },
    ];
    for (const { status, type, code } of cases) {
      respond = (_req, res) => sendAnthropicError(res, status, type, "invalid x-api-key");
      const adapter = adapterAt(server.url);
      for (const error of [await completeError(adapter.complete(ask)), (await streamError(adapter.stream(ask))).error]) {
        expect(error).toMatchObject({ status: 502, type: "api_error", code, provider: "anthropic", retryable: false });
        expect(error.message).toContain(`(upstream ${status}, ${type}: invalid x-api-key)`);
        expect(error.message).toContain('check the API key of provider "anthropic" in the gateway config');
      }
    }
  });

  it("an authentication_error event in a stream is mapped like the HTTP 401", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(head));
      res.end(`event: error\ndata: {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}\n\n`);
    };
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error).toMatchObject({ status: 502, type: "api_error", code: "upstream_authentication_error", retryable: false });
  });

  it("429 with retry-after carries the delay", async () => {
    respond = (_req, res) => sendJson(res, 429, { type: "error", error: { type: "rate_limit_error", message: "Slow down" } }, { "retry-after": "2" });
    const error = await completeError(adapterAt(server.url).complete(ask));
    expect(error.type).toBe("rate_limit_error");
    expect(error.retryAfterMs).toBe(2000);
  });

  it("a 500 with a non-JSON body keeps its text", async () => {
    respond = (_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end("upstream exploded");
    };
    const error = await completeError(adapterAt(server.url).complete(ask));
    expect(error.status).toBe(500);
    expect(error.type).toBe("api_error");
    expect(error.retryable).toBe(true);
    expect(error.message).toContain("upstream exploded");
  });

  it("a 200 that is not a Message is a protocol error", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{not json");
    };
    expect((await completeError(adapterAt(server.url).complete(ask))).code).toBe("upstream_protocol_error");
    respond = (_req, res) => sendJson(res, 200, { type: "message", id: "msg_x" });
    expect((await completeError(adapterAt(server.url).complete(ask))).message).toBe("anthropic: the response has no content array");
  });
});

describe("connection, timeout, abort", () => {
  it("an unreachable upstream is a retryable connection error", async () => {
    const gone = await startFakeUpstream();
    const url = gone.url;
    await gone.close();
    const adapter = adapterAt(url);
    for (const error of [await completeError(adapter.complete(ask)), (await streamError(adapter.stream(ask))).error]) {
      expect(error.code).toBe("upstream_unreachable");
      expect(error.status).toBe(502);
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(/ECONNREFUSED/);
    }
  });

  it("no answer within timeoutMs is a timeout, for complete and stream", async () => {
    respond = () => undefined; // never answers
    const adapter = adapterAt(server.url, { timeoutMs: 200 });
    for (const error of [await completeError(adapter.complete(ask)), (await streamError(adapter.stream(ask))).error]) {
      expect(error.code).toBe("upstream_timeout");
      expect(error.status).toBe(504);
      expect(error.type).toBe("timeout_error");
      expect(error.retryable).toBe(true);
    }
  });

  it("a stream that goes silent after it started times out instead of hanging", async () => {
    respond = (_req, res) => openSse(res, anthropicSse(head));
    const { error, seen } = await streamError(adapterAt(server.url, { timeoutMs: 300 }).stream(ask));
    expect(types(seen)).toEqual(["start", "text_start", "text_delta"]);
    expect(error.code).toBe("upstream_timeout");
  });

  it("a slow consumer does not count as a silent upstream", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse(head));
      res.end(anthropicSse(tail));
    };
    const events: StreamEvent[] = [];
    for await (const event of adapterAt(server.url, { timeoutMs: 150 }).stream(ask)) {
      events.push(event);
      if (events.length === 1) await sleep(400);
    }
    expect(lastResult(events).message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(lastResult(events).usage).toEqual({ inputTokens: 9, outputTokens: 3 });
  });

  it("aborting mid-stream ends with a non-retryable aborted error and closes the connection", async () => {
    let closed!: Promise<void>;
    respond = (_req, res) => {
      closed = new Promise((resolve) => res.on("close", () => resolve()));
      openSse(res, anthropicSse(head));
    };
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    const failure = (async () => {
      for await (const event of adapterAt(server.url).stream(ask, controller.signal)) {
        seen.push(event);
        if (event.type === "text_delta") controller.abort();
      }
    })();
    const error = await failure.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toMatchObject({ name: "GatewayError", status: 499, code: "request_aborted", retryable: false });
    expect(types(seen)).toEqual(["start", "text_start", "text_delta"]);
    await closed;
  });

  it("an already aborted signal sends nothing; an abort while waiting for complete() ends it", async () => {
    const before = server.requests.length;
    const controller = new AbortController();
    controller.abort();
    expect((await streamError(adapterAt(server.url).stream(ask, controller.signal))).error.code).toBe("request_aborted");
    expect((await completeError(adapterAt(server.url).complete(ask, controller.signal))).code).toBe("request_aborted");
    expect(server.requests.length).toBe(before);

    respond = () => undefined;
    const late = new AbortController();
    setTimeout(() => late.abort(), 50);
    expect((await completeError(adapterAt(server.url).complete(ask, late.signal))).code).toBe("request_aborted");
  });

  it("a consumer that stops early closes the upstream connection", async () => {
    let closed!: Promise<void>;
    respond = (_req, res) => {
      closed = new Promise((resolve) => res.on("close", () => resolve()));
      openSse(res, anthropicSse(head));
    };
    for await (const event of adapterAt(server.url).stream(ask)) {
      if (event.type === "start") break;
    }
    await closed;
  });
});

describe("client setup", () => {
  it("sends the configured headers and key, and a placeholder key when none is configured", async () => {
    respond = (_req, res) => sendJson(res, 200, { id: "msg_h", type: "message", role: "assistant", model: "m", content: [], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 1 } });
    await adapterAt(server.url, { headers: { "x-team": "search" } }).complete(ask);
    const sent = server.requests.at(-1)!;
    expect(sent.headers["x-team"]).toBe("search");
    expect(sent.headers["authorization"]).toBe("Bearer test-key");
    await adapterAt(server.url, { apiKey: undefined }).complete(ask);
    expect(server.requests.at(-1)!.headers["authorization"]).toBe("Bearer no-api-key");
  });

  it("streams an empty completion to a done with no content", async () => {
    respond = (_req, res) => {
      openSse(res, anthropicSse([head[0]!, ...tail.slice(2)]));
      res.end();
    };
    const events = await collect(adapterAt(server.url).stream(ask));
    expect(types(events)).toEqual(["start", "usage", "done"]);
    expect(lastResult(events)).toEqual({
      id: "msg_1",
      model: "claude-haiku-4-5",
      message: { role: "assistant", content: [] },
      stopReason: "stop",
      providerStopReason: "end_turn",
      usage: { inputTokens: 9, outputTokens: 3 },
    });
  });
});
