/**
 * How Gemini's failures reach the gateway: Google's error statuses as the error taxonomy (and
 * whether to retry), errors inside a stream, streams cut off, answers that end in a failed
 * function call, filtered and truncated answers, and the network failing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { sendJson, startFakeUpstream, type FakeUpstream, type Handler } from "../../helpers/fake-upstream.ts";
import { geminiSse, sendGeminiSse } from "../../helpers/gemini-native-fake.ts";
import { adapterAt, collect, completeError, lastResult, request, streamError, userText } from "./support.ts";

let server: FakeUpstream | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(handler: Handler): Promise<string> {
  server = await startFakeUpstream(handler);
  return server.url;
}

const ask = request([userText("hi")]);
const chunk = (parts: object[], extra: object = {}) => ({ candidates: [{ content: { role: "model", parts }, index: 0, ...extra }], modelVersion: "gemini-2.5-flash", responseId: "r1" });

describe("Google's error statuses", () => {
  const quotaBody = {
    error: {
      code: 429,
      message: "You exceeded your current quota, please check your plan and billing details.",
      status: "RESOURCE_EXHAUSTED",
      details: [
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" }] },
        { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "39s" },
      ],
    },
  };

  it.each([
    ["429 RESOURCE_EXHAUSTED, with RetryInfo", 429, quotaBody, { status: 429, type: "rate_limit_error", code: "RESOURCE_EXHAUSTED", retryable: true, retryAfterMs: 39000 }],
    ["503 UNAVAILABLE", 503, { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } }, { status: 503, code: "UNAVAILABLE", retryable: true }],
    ["500 INTERNAL", 500, { error: { code: 500, message: "An internal error has occurred.", status: "INTERNAL" } }, { status: 500, code: "INTERNAL", retryable: true }],
    ["504 DEADLINE_EXCEEDED", 504, { error: { code: 504, message: "Deadline expired before operation could complete.", status: "DEADLINE_EXCEEDED" } }, { status: 504, retryable: true }],
    ["400 INVALID_ARGUMENT", 400, { error: { code: 400, message: "Please use a valid role: user, model.", status: "INVALID_ARGUMENT" } }, { status: 400, type: "invalid_request_error", code: "INVALID_ARGUMENT", retryable: false }],
    ["400 FAILED_PRECONDITION", 400, { error: { code: 400, message: "User location is not supported for the API use.", status: "FAILED_PRECONDITION" } }, { status: 400, retryable: false }],
    ["404 NOT_FOUND", 404, { error: { code: 404, message: "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.", status: "NOT_FOUND" } }, { status: 404, type: "not_found_error", retryable: false }],
    ["403 PERMISSION_DENIED", 403, { error: { code: 403, message: "Permission denied on resource project p.", status: "PERMISSION_DENIED" } }, { status: 502, code: "upstream_permission_error", retryable: false }],
    ["400 API_KEY_INVALID (the gateway's key)", 400, { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT", details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" }] } }, { status: 502, code: "upstream_authentication_error", retryable: false }],
    ["an array-wrapped error", 503, [{ error: { code: 503, message: "overloaded", status: "UNAVAILABLE" } }], { status: 503, retryable: true }],
    ["a proxy's HTML page", 502, "<html><body>Bad Gateway</body></html>", { status: 502, retryable: true }],
  ] as const)("%s", async (_name, status, body, expected) => {
    const url = await serve((_req, res) => sendJson(res, status, body));
    const error = await completeError(adapterAt(url).complete(ask));
    expect(error).toMatchObject({ provider: "gemini", ...expected });
    const streamed = await streamError(adapterAt(url).stream(ask));
    expect(streamed).toMatchObject({ provider: "gemini", ...expected });
  });

  it("the message is Google's", async () => {
    const url = await serve((_req, res) => sendJson(res, 400, { error: { code: 400, message: "Please use a valid role: user, model.", status: "INVALID_ARGUMENT" } }));
    expect((await completeError(adapterAt(url).complete(ask))).message).toBe("gemini: Please use a valid role: user, model.");
  });
});

describe("streams", () => {
  it("an error object in the stream is that error (retryable when Google says so)", async () => {
    const url = await serve((_req, res) => sendGeminiSse(res, [chunk([{ text: "Hel" }]), { error: { code: 503, message: "The model is overloaded.", status: "UNAVAILABLE" } }]));
    const events: string[] = [];
    const error = await streamError(
      (async function* () {
        for await (const event of adapterAt(url).stream(ask)) {
          events.push(event.type);
          yield event;
        }
      })(),
    );
    expect(events).toEqual(["start", "text_start", "text_delta"]);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE", retryable: true });
  });

  it("a stream that ends before the finish reason was cut off", async () => {
    const url = await serve((_req, res) => sendGeminiSse(res, [chunk([{ text: "partial" }])]));
    expect(await streamError(adapterAt(url).stream(ask))).toMatchObject({ status: 502, code: "upstream_protocol_error", retryable: true, message: expect.stringContaining("cut off") });
  });

  it("a connection that breaks mid-stream is a retryable connection error", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(geminiSse([chunk([{ text: "partial" }])]));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    expect(await streamError(adapterAt(url).stream(ask))).toMatchObject({ retryable: true });
  });

  it("a silent upstream times out (idle clock) and the caller's abort is an abort", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(geminiSse([chunk([{ text: "partial" }])]));
    });
    expect(await streamError(adapterAt(url, { timeoutMs: 100 }).stream(ask))).toMatchObject({ status: 504, code: "upstream_timeout" });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await completeError(adapterAt(url).complete(ask, controller.signal))).toMatchObject({ status: 499, code: "request_aborted", retryable: false });
  });

  it("an upstream that cannot be reached is a retryable connection error", async () => {
    const url = await serve((_req, res) => sendJson(res, 200, {}));
    await server!.close();
    server = undefined;
    expect(await completeError(adapterAt(url).complete(ask))).toMatchObject({ status: 502, code: "upstream_unreachable", retryable: true });
  });
});

describe("finish reasons", () => {
  const tools = [{ name: "get_weather", inputSchema: { type: "object", properties: { city: { type: "string" } } } }];

  it("MALFORMED_FUNCTION_CALL is a retryable error carrying Gemini's finish message, streamed or not", async () => {
    const body = { candidates: [{ content: { role: "model", parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL", finishMessage: "Malformed function call: print(default_api.get_weather(city=Paris))", index: 0 }], usageMetadata: { promptTokenCount: 10 } };
    const url = await serve((req, res) => (req.path.includes("stream") ? sendGeminiSse(res, [body]) : sendJson(res, 200, body)));
    for (const error of [await completeError(adapterAt(url).complete({ ...ask, tools })), await streamError(adapterAt(url).stream({ ...ask, tools }))]) {
      expect(error).toMatchObject({ status: 502, code: "malformed_function_call", retryable: true });
      expect(error.message).toContain("print(default_api.get_weather(city=Paris))");
    }
  });

  it.each(["SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII"])("%s is content_filter", async (reason) => {
    const url = await serve((_req, res) => sendJson(res, 200, chunk([{ text: "I can" }], { finishReason: reason })));
    expect((await adapterAt(url).complete(ask)).stopReason).toBe("content_filter");
  });

  it("a blocked prompt (no candidates, promptFeedback) is content_filter with no content", async () => {
    const blocked = { promptFeedback: { blockReason: "SAFETY" }, usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 } };
    const url = await serve((req, res) => (req.path.includes("stream") ? sendGeminiSse(res, [blocked]) : sendJson(res, 200, blocked)));
    const plain = await adapterAt(url).complete(ask);
    expect(plain).toMatchObject({ stopReason: "content_filter", message: { content: [] }, usage: { inputTokens: 8, outputTokens: 0 } });
    expect(lastResult(await collect(adapterAt(url).stream(ask)))).toMatchObject({ stopReason: "content_filter" });
  });

  it("MAX_TOKENS is length; a call whose arguments were still streaming is not runnable", async () => {
    const url = await serve((_req, res) =>
      sendGeminiSse(res, [
        chunk([{ functionCall: { name: "get_weather", willContinue: true } }]),
        chunk([{ functionCall: { partialArgs: [{ jsonPath: "$.city", stringValue: "Par", willContinue: true }], willContinue: true } }], { finishReason: "MAX_TOKENS" }),
      ]),
    );
    const result = lastResult(await collect(adapterAt(url).stream({ ...ask, tools })));
    expect(result.stopReason).toBe("length");
    expect(result.message.content[0]).toMatchObject({ type: "tool_call", name: "get_weather", arguments: {}, argumentsError: expect.stringContaining("cut off") });
  });

  it("a response with no candidates and no feedback is a protocol error", async () => {
    const url = await serve((_req, res) => sendJson(res, 200, { usageMetadata: { promptTokenCount: 1 } }));
    expect(await completeError(adapterAt(url).complete(ask))).toMatchObject({ code: "upstream_protocol_error" });
  });
});
