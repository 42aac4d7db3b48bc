/** Upstream failures: every one ends in a typed GatewayError, promptly, with no unhandled rejection. */
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GatewayError } from "../../../src/core/index.ts";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { adapterFor, chunk, collect, jsonBody, PROVIDER, rejectionOf, simpleRequest, startSse } from "./harness.ts";

let upstream: FakeUpstream;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  upstream = await startFakeUpstream();
  process.on("unhandledRejection", onUnhandled);
});
afterAll(async () => {
  process.off("unhandledRejection", onUnhandled);
  await upstream.close();
});
afterEach(async () => {
  // give a stray rejection the chance to surface before checking
  await new Promise((resolve) => setTimeout(resolve, 20));
  expect(unhandled).toEqual([]);
});

const streamError = (options = {}, signal?: AbortSignal) =>
  rejectionOf(collect(adapterFor(upstream, options).stream(simpleRequest(), signal)));
const completeError = (options = {}, signal?: AbortSignal) =>
  rejectionOf(adapterFor(upstream, options).complete(simpleRequest(), signal));

const opening = [chunk({ role: "assistant", content: "" }), chunk({ content: "Hello" }), chunk({ content: " wor" })];

function expectGatewayError(error: unknown, fields: Partial<Record<keyof GatewayError, unknown>>): void {
  expect(error).toBeInstanceOf(GatewayError);
  expect(error).toMatchObject({ provider: PROVIDER, ...fields });
}

describe("openai-chat malformed streams", () => {
  it("socket destroyed mid-stream: protocol error (502, retryable)", async () => {
    upstream.handle((_req, res) => {
      startSse(res, opening);
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await streamError();
    expectGatewayError(error, { status: 502, type: "api_error", code: "upstream_protocol_error", retryable: true });
    expect(error.message).toContain("cut off");
  });

  it("stream that ends cleanly but without finish_reason: protocol error", async () => {
    upstream.handle((_req, res) => {
      startSse(res, opening);
      res.end();
    });
    const error = await streamError();
    expectGatewayError(error, { status: 502, code: "upstream_protocol_error", retryable: true });
    expect(error.message).toContain("finish_reason");
  });

  it("stream with [DONE] but no finish_reason: protocol error", async () => {
    upstream.handle((_req, res) => {
      startSse(res, [...opening, "[DONE]"]);
      res.end();
    });
    expectGatewayError(await streamError(), { status: 502, code: "upstream_protocol_error" });
  });

  it("empty 200 stream: protocol error", async () => {
    upstream.handle((_req, res) => sendSse(res, ""));
    expectGatewayError(await streamError(), { status: 502, code: "upstream_protocol_error" });
  });

  it("invalid JSON in a data line: protocol error", async () => {
    upstream.handle((_req, res) => {
      startSse(res, [...opening, '{"id":"chatcmpl-test","choices":[{"index":0,"delta":{"content":"x"']);
      res.end("data: [DONE]\n\n");
    });
    const error = await streamError();
    expectGatewayError(error, { status: 502, code: "upstream_protocol_error", retryable: true });
    expect(error.message).toContain("invalid JSON");
  });

  it("a data line that is JSON but not a chunk (null): protocol error", async () => {
    upstream.handle((_req, res) => {
      startSse(res, [...opening, "null"]);
      res.end();
    });
    expectGatewayError(await streamError(), { status: 502, code: "upstream_protocol_error" });
  });

  it("SSE error frame mid-stream keeps the provider's message and code", async () => {
    upstream.handle((_req, res) => {
      startSse(res, [...opening, JSON.stringify({ error: { message: "The server is overloaded", type: "server_error", code: "overloaded" } })]);
      res.end();
    });
    const error = await streamError();
    expectGatewayError(error, { status: 502, type: "api_error", code: "overloaded", retryable: true });
    expect(error.message).toBe(`${PROVIDER}: The server is overloaded`);
  });

  it("SSE error frame with a numeric HTTP-like code (OpenRouter style) takes it as status", async () => {
    upstream.handle((_req, res) => {
      startSse(res, [JSON.stringify({ error: { message: "Rate limit exceeded", code: 429 } })]);
      res.end();
    });
    expectGatewayError(await streamError(), { status: 429, type: "rate_limit_error", code: "upstream_429", retryable: true });
  });

  it("a stream that stalls after the headers hits the idle timeout (504)", async () => {
    upstream.handle((_req, res) => startSse(res, opening)); // never ends
    const started = Date.now();
    expectGatewayError(await streamError({ timeoutMs: 300 }), { status: 504, type: "timeout_error", code: "upstream_timeout", retryable: true });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("openai-chat HTTP errors", () => {
  it("429 with retry-after: rate_limit_error, retryable, retryAfterMs (complete and stream)", async () => {
    upstream.handle((_req, res) =>
      sendJson(res, 429, { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }, { "retry-after": "2" }),
    );
    for (const error of [await completeError(), await streamError()]) {
      expectGatewayError(error, { status: 429, type: "rate_limit_error", code: "rate_limit_exceeded", retryable: true, retryAfterMs: 2000 });
      expect(error.message).toBe(`${PROVIDER}: Rate limit reached`);
    }
  });

  it("500: api_error, retryable", async () => {
    upstream.handle((_req, res) => sendJson(res, 500, { error: { message: "Internal failure", type: "server_error" } }));
    expectGatewayError(await completeError(), { status: 500, type: "api_error", code: "upstream_500", retryable: true });
    expectGatewayError(await streamError(), { status: 500, type: "api_error", retryable: true });
  });

  // The provider refusing the gateway's key is not the client's key being wrong: never a 401/403 to the client.
  it("upstream 401: a 502 upstream_authentication_error naming the provider and its key, not retryable", async () => {
    upstream.handle((_req, res) =>
      sendJson(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }),
    );
    for (const error of [await completeError(), await streamError()]) {
      expectGatewayError(error, { status: 502, type: "api_error", code: "upstream_authentication_error", retryable: false });
      expect(error.retryAfterMs).toBeUndefined();
      expect(error.message).toBe(
        `${PROVIDER}: the provider rejected the gateway's credentials (upstream 401, invalid_api_key: Incorrect API key provided); ` +
          `check the API key of provider "${PROVIDER}" in the gateway config (providers.${PROVIDER}.apiKey)`,
      );
    }
  });

  it("upstream 403: a 502 upstream_permission_error, not retryable", async () => {
    upstream.handle((_req, res) => sendJson(res, 403, { error: { message: "Project does not have access to model", type: "invalid_request_error" } }));
    const error = await completeError();
    expectGatewayError(error, { status: 502, type: "api_error", code: "upstream_permission_error", retryable: false });
    expect(error.message).toMatch(/^test-provider: the provider refused access .*\(upstream 403: Project does not have access to model\); check the API key of provider "test-provider"/);
  });

  it("recorded 400 for a reasoning model's max_tokens keeps code and param", async () => {
    upstream.handle(jsonBody("openai-chat/reasoning-model-legacy-parameter-error.json", 400));
    const error = await completeError();
    expectGatewayError(error, {
      status: 400,
      type: "invalid_request_error",
      code: "unsupported_parameter",
      param: "max_tokens",
      retryable: false,
    });
    expect(error.message).toBe(
      `${PROVIDER}: Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.`,
    );
    expect(error.toJSON()).toEqual({
      error: { message: error.message, type: "invalid_request_error", param: "max_tokens", code: "unsupported_parameter" },
    });
  });

  it("a 200 that is not a chat completion: protocol error", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("hello");
    });
    expectGatewayError(await completeError(), { status: 502, code: "upstream_protocol_error" });
  });

  it("a 200 JSON body cut mid-way: protocol error", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "500" });
      res.write('{"id": "x", "choices": [');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const error = await completeError();
    expectGatewayError(error, { status: 502, code: "upstream_protocol_error", retryable: true });
  });

  it("a 200 with broken JSON: protocol error", async () => {
    upstream.handle((_req, res) => sendJson(res, 200, '{"id": "x", "choices": ['));
    expectGatewayError(await completeError(), { status: 502, code: "upstream_protocol_error" });
  });
});

describe("openai-chat connection, timeout, abort", () => {
  it("nothing listening: upstream_unreachable (502, retryable)", async () => {
    const port = await freePort();
    const adapter = adapterFor({ url: `http://127.0.0.1:${port}` } as FakeUpstream);
    const error = await rejectionOf(adapter.complete(simpleRequest()));
    expectGatewayError(error, { status: 502, code: "upstream_unreachable", retryable: true });
    expectGatewayError(await rejectionOf(collect(adapter.stream(simpleRequest()))), { status: 502, code: "upstream_unreachable" });
  });

  it("no answer within timeoutMs: upstream_timeout (504)", async () => {
    upstream.handle(() => new Promise(() => {})); // never answers
    expectGatewayError(await completeError({ timeoutMs: 200 }), { status: 504, type: "timeout_error", code: "upstream_timeout" });
    expectGatewayError(await streamError({ timeoutMs: 200 }), { status: 504, code: "upstream_timeout" });
  });

  it("an already aborted signal: request_aborted (499, not retryable)", async () => {
    const controller = new AbortController();
    controller.abort();
    expectGatewayError(await completeError({}, controller.signal), { status: 499, code: "request_aborted", retryable: false });
    expectGatewayError(await streamError({}, controller.signal), { status: 499, code: "request_aborted" });
  });

  it("abort while waiting for the response", async () => {
    upstream.handle(() => new Promise(() => {}));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expectGatewayError(await completeError({}, controller.signal), { status: 499, code: "request_aborted" });
  });

  it("abort mid-stream ends the iteration with request_aborted", async () => {
    upstream.handle((_req, res) => startSse(res, opening)); // never ends
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await rejectionOf(
      (async () => {
        for await (const event of adapterFor(upstream).stream(simpleRequest(), controller.signal)) {
          seen.push(event.type);
          if (event.type === "text_delta") controller.abort();
        }
      })(),
    );
    expect(seen.slice(0, 3)).toEqual(["start", "text_start", "text_delta"]);
    expectGatewayError(error, { status: 499, code: "request_aborted" });
  });

  it("a consumer that stops early closes the upstream connection", async () => {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
    upstream.handle((_req, res) => {
      startSse(res, opening);
      res.on("close", () => closed());
    });
    for await (const event of adapterFor(upstream).stream(simpleRequest())) {
      if (event.type === "text_start") break;
    }
    await connectionClosed;
  });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}
