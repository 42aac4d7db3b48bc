/**
 * Streams built event by event: what the recordings do not show (freeform calls, hosted tool
 * items, summaries in parts, refusals, a response cut by the token limit), and every way a stream
 * can fail ending as a typed GatewayError.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sendJson, startFakeUpstream, type FakeUpstream, type Handler } from "../../helpers/fake-upstream.ts";
import type { StreamEvent } from "../../../src/core/index.ts";
import { fromResponse } from "../../../src/adapters/openai-responses/index.ts";
import type { Response } from "../../../src/adapters/openai-responses/wire.ts";
import { PROVIDER, adapterAt, collect, completeError, eventTypes, lastResult, openSse, request, sendEvents, streamError, userText } from "./support.ts";

const ask = request([userText("Hello")], { tools: [{ name: "apply_patch", inputSchema: { type: "object", properties: { input: { type: "string" } } }, freeform: {} }] });

const base = { id: "resp_1", object: "response", model: "gpt-5-mini", created_at: 1, error: null, incomplete_details: null };
const created = { type: "response.created", sequence_number: 0, response: { ...base, status: "in_progress", output: [] } };
const usage = { input_tokens: 20, input_tokens_details: { cached_tokens: 8 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 4 }, total_tokens: 29 };
const completed = (output: unknown[], extra: object = {}) => ({ type: "response.completed", response: { ...base, status: "completed", output, usage, ...extra } });

let server: FakeUpstream;
let respond: Handler;
beforeAll(async () => {
  server = await startFakeUpstream((req, res) => respond(req, res));
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  respond = (_req, res) => sendJson(res, 500, { error: { message: "no handler" } });
});

const streamOf = (events: unknown[]): Handler => (_req, res) => sendEvents(res, events);
const run = async (events: unknown[]): Promise<StreamEvent[]> => {
  respond = streamOf(events);
  return collect(adapterAt(server.url).stream(ask));
};

describe("stream translation", () => {
  it("a freeform call: started, then ended whole with its text as arguments.input", async () => {
    const item = { id: "ctc_1", type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: "" };
    const done = { ...item, input: "*** Begin Patch\n*** End Patch" };
    const events = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item },
      { type: "response.custom_tool_call_input.delta", output_index: 0, item_id: "ctc_1", delta: "*** Begin Patch\n" },
      { type: "response.custom_tool_call_input.delta", output_index: 0, item_id: "ctc_1", delta: "*** End Patch" },
      { type: "response.custom_tool_call_input.done", output_index: 0, item_id: "ctc_1", input: done.input },
      { type: "response.output_item.done", output_index: 0, item: done },
      completed([done]),
    ]);
    expect(eventTypes(events)).toEqual(["start", "tool_call_start", "tool_call_end", "usage", "done"]);
    const call = { type: "tool_call", id: "call_p", name: "apply_patch", arguments: { input: done.input }, rawArguments: JSON.stringify({ input: done.input }) };
    expect(events[2]).toEqual({ type: "tool_call_end", index: 0, call });
    expect(lastResult(events).message.content).toEqual([call]);
    expect(lastResult(events).stopReason).toBe("tool_calls");
  });

  it("hosted tool items are kept whole in the result and streamed as one opaque event; unknown events are ignored", async () => {
    const search = { id: "ws_1", type: "web_search_call", status: "completed", action: { type: "search", query: "news" } };
    const message = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "News.", annotations: [] }] };
    const events = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item: { ...search, status: "in_progress" } },
      { type: "response.web_search_call.in_progress", output_index: 0, item_id: "ws_1" },
      { type: "response.web_search_call.searching", output_index: 0, item_id: "ws_1" },
      { type: "response.web_search_call.completed", output_index: 0, item_id: "ws_1" },
      { type: "response.output_item.done", output_index: 0, item: search },
      { type: "response.output_item.added", output_index: 1, item: { ...message, status: "in_progress", content: [] } },
      { type: "response.content_part.added", output_index: 1, content_index: 0, item_id: "msg_1", part: { type: "output_text", text: "", annotations: [] } },
      { type: "response.output_text.delta", output_index: 1, content_index: 0, item_id: "msg_1", delta: "News." },
      { type: "response.output_text.annotation.added", output_index: 1, content_index: 0, item_id: "msg_1", annotation: {} },
      { type: "response.something_new", whatever: true },
      { type: "response.output_item.done", output_index: 1, item: message },
      completed([search, message]),
    ]);
    // The hosted item comes whole, as one event, for Responses clients to show.
    expect(eventTypes(events)).toEqual(["start", "opaque", "text_start", "text_delta", "text_end", "usage", "done"]);
    const result = lastResult(events);
    expect(result.message.content).toEqual([{ type: "opaque", providerData: { origin: PROVIDER, data: { item: search } } }, { type: "text", text: "News." }]);
    expect(result.stopReason).toBe("stop");
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 9, cacheReadTokens: 8, reasoningTokens: 4 });
    expect(result).toEqual(fromResponse(completed([search, message]).response as unknown as Response, PROVIDER, "gpt-5-mini"));
  });

  it("summary parts are one block, a blank line apart, in the deltas too; reasoning without a summary still ends", async () => {
    const reasoning = { id: "rs_1", type: "reasoning", encrypted_content: "enc-final", summary: [{ type: "summary_text", text: "First." }, { type: "summary_text", text: "Second." }] };
    const silent = { id: "rs_2", type: "reasoning", encrypted_content: "enc-2", summary: [] };
    const events = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item: { ...reasoning, encrypted_content: "enc-early", summary: [] } },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 0, item_id: "rs_1", delta: "First." },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 1, item_id: "rs_1", delta: "Sec" },
      { type: "response.reasoning_summary_text.delta", output_index: 0, summary_index: 1, item_id: "rs_1", delta: "ond." },
      { type: "response.output_item.done", output_index: 0, item: reasoning },
      { type: "response.output_item.added", output_index: 1, item: silent },
      { type: "response.output_item.done", output_index: 1, item: silent },
      completed([reasoning, silent]),
    ]);
    expect(eventTypes(events)).toEqual(["start", "reasoning_start", "reasoning_delta", "reasoning_end", "reasoning_start", "reasoning_end", "usage", "done"]);
    expect(events.flatMap((e) => (e.type === "reasoning_delta" ? [e.delta] : [])).join("")).toBe("First.\n\nSecond.");
    const ends = events.flatMap((e) => (e.type === "reasoning_end" ? [e.block] : []));
    expect(ends).toEqual([
      { type: "reasoning", text: "First.\n\nSecond.", providerData: { origin: PROVIDER, data: { item: reasoning } } },
      { type: "reasoning", text: "", providerData: { origin: PROVIDER, data: { item: silent } } },
    ]);
  });

  it("a refusal streams as text and marks the answer filtered", async () => {
    const message = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "refusal", refusal: "I can't help with that." }] };
    const events = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item: { ...message, content: [] } },
      { type: "response.refusal.delta", output_index: 0, content_index: 0, item_id: "msg_1", delta: "I can't help with that." },
      { type: "response.output_item.done", output_index: 0, item: message },
      completed([message]),
    ]);
    expect(eventTypes(events)).toEqual(["start", "text_start", "text_delta", "text_end", "usage", "done"]);
    expect(lastResult(events)).toMatchObject({ stopReason: "content_filter", message: { content: [{ type: "text", text: "I can't help with that." }] } });
  });

  it("cut by max_output_tokens inside a call: closed, stop reason length, the call not runnable", async () => {
    const call = { id: "fc_1", type: "function_call", status: "in_progress", call_id: "call_1", name: "get_weather", arguments: "" };
    const events = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item: { id: "msg_1", type: "message", role: "assistant", status: "in_progress", content: [] } },
      { type: "response.output_text.delta", output_index: 0, content_index: 0, item_id: "msg_1", delta: "Let me check" },
      { type: "response.output_item.added", output_index: 1, item: call },
      { type: "response.function_call_arguments.delta", output_index: 1, item_id: "fc_1", delta: '{"city":"Pa' },
      { type: "response.incomplete", response: { ...base, status: "incomplete", incomplete_details: { reason: "max_output_tokens" }, output: [], usage } },
    ]);
    expect(eventTypes(events)).toEqual(["start", "text_start", "text_delta", "tool_call_start", "tool_call_delta", "text_end", "tool_call_end", "usage", "done"]);
    const result = lastResult(events);
    expect(result.stopReason).toBe("length");
    expect(result.message.content[0]).toEqual({ type: "text", text: "Let me check" });
    expect(result.message.content[1]).toMatchObject({ type: "tool_call", id: "call_1", arguments: {}, rawArguments: '{"city":"Pa' });
    expect(result.message.content[1]).toHaveProperty("argumentsError");
  });

  it("the terminal response's items: those the stream finished count once (ids or call ids), the others come out whole", async () => {
    // A compatible server's call without an item id, finished in the stream and repeated in response.completed.
    const call = { type: "function_call", status: "completed", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' };
    const message = { id: "msg_1", type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Checking.", annotations: [] }] };
    const events = await run([
      created,
      { type: "response.output_item.added", output_index: 0, item: { ...call, arguments: "" } },
      { type: "response.function_call_arguments.delta", output_index: 0, delta: call.arguments },
      { type: "response.output_item.done", output_index: 0, item: call },
      completed([call, message]),
    ]);
    expect(eventTypes(events)).toEqual(["start", "tool_call_start", "tool_call_delta", "tool_call_end", "text_start", "text_delta", "text_end", "usage", "done"]);
    expect(lastResult(events).message.content.map((b) => b.type)).toEqual(["tool_call", "text"]);
  });

  it("an incomplete non-streamed response: length, or content_filter", async () => {
    for (const [reason, stop] of [["max_output_tokens", "length"], ["content_filter", "content_filter"]] as const) {
      respond = (_req, res) => sendJson(res, 200, { ...base, status: "incomplete", incomplete_details: { reason }, output: [], usage });
      expect((await adapterAt(server.url).complete(ask)).stopReason).toBe(stop);
    }
  });
});

describe("stream failures", () => {
  const failed = (code: string) => ({ type: "response.failed", response: { ...base, status: "failed", output: [], error: { code, message: `failed: ${code}` } } });

  it.each([
    ["server_error", 500, "api_error", true],
    ["rate_limit_exceeded", 429, "rate_limit_error", true],
    ["invalid_prompt", 400, "invalid_request_error", false],
    ["invalid_image_url", 400, "invalid_request_error", false],
  ] as const)("response.failed %s: %i", async (code, status, type, retryable) => {
    respond = streamOf([created, failed(code)]);
    const { error, seen } = await streamError(adapterAt(server.url).stream(ask));
    expect(error).toMatchObject({ status, type, code, provider: PROVIDER, retryable });
    expect(error.message).toBe(`${PROVIDER}: failed: ${code}`);
    expect(seen.map((e) => e.type)).toEqual(["start"]);
  });

  it("an error event in the reference's flat shape", async () => {
    respond = streamOf([created, { type: "error", code: "server_error", message: "The server had an error", param: null, sequence_number: 1 }]);
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error).toMatchObject({ status: 500, code: "server_error", retryable: true });
  });

  it("a non-streamed response with status failed is thrown as its error", async () => {
    respond = (_req, res) => sendJson(res, 200, { ...base, status: "failed", output: [], error: { code: "server_error", message: "boom" } });
    expect(await completeError(adapterAt(server.url).complete(ask))).toMatchObject({ status: 500, code: "server_error", retryable: true });
  });

  it("a non-streamed body that is not a response: protocol error", async () => {
    respond = (_req, res) => sendJson(res, 200, { hello: "world" });
    expect(await completeError(adapterAt(server.url).complete(ask))).toMatchObject({ status: 502, code: "upstream_protocol_error" });
  });

  it("a stream that ends without a terminal event (cut): protocol error after what came", async () => {
    respond = (_req, res) => {
      openSse(res, [created, { type: "response.output_text.delta", output_index: 0, content_index: 0, item_id: "m", delta: "Hel" }]);
      res.end();
    };
    const { error, seen } = await streamError(adapterAt(server.url).stream(ask));
    expect(error).toMatchObject({ status: 502, code: "upstream_protocol_error", retryable: true });
    expect(error.message).toContain("response.completed");
    expect(seen.map((e) => e.type)).toEqual(["start", "text_start", "text_delta"]);
  });

  it("a connection that breaks mid-stream", async () => {
    respond = (_req, res) => {
      openSse(res, [created]);
      res.socket?.destroy();
    };
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error.status).toBe(502);
    expect(error.retryable).toBe(true);
  });

  it("a delta before response.created, and data that is not JSON: protocol errors", async () => {
    respond = streamOf([{ type: "response.output_text.delta", output_index: 0, content_index: 0, item_id: "m", delta: "x" }]);
    expect((await streamError(adapterAt(server.url).stream(ask))).error).toMatchObject({ status: 502, code: "upstream_protocol_error" });
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(`event: response.created\ndata: ${JSON.stringify(created)}\n\nevent: response.output_text.delta\ndata: {"type":"response.out\n\n`);
    };
    const { error } = await streamError(adapterAt(server.url).stream(ask));
    expect(error).toMatchObject({ status: 502, code: "upstream_protocol_error" });
    expect(error.message).toContain("invalid JSON");
  });

  it("a stream that stalls after the headers hits the idle timeout (504)", async () => {
    respond = (_req, res) => openSse(res, [created]); // never ends
    const { error } = await streamError(adapterAt(server.url, { timeoutMs: 300 }).stream(ask));
    expect(error).toMatchObject({ status: 504, type: "timeout_error", code: "upstream_timeout", retryable: true });
  });

  it("the caller aborting mid-stream: 499, not retried", async () => {
    respond = (_req, res) => openSse(res, [created]); // never ends
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of adapterAt(server.url).stream(ask, controller.signal)) {
        seen.push(event);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(seen.map((e) => e.type)).toEqual(["start"]);
    expect(caught).toMatchObject({ status: 499, code: "request_aborted", retryable: false });
  });
});

describe("HTTP errors", () => {
  it("429 with retry-after: rate_limit_error, retryable, retryAfterMs (complete and stream)", async () => {
    respond = (_req, res) => sendJson(res, 429, { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded", param: null } }, { "retry-after": "2" });
    const adapter = adapterAt(server.url);
    for (const error of [await completeError(adapter.complete(ask)), (await streamError(adapter.stream(ask))).error]) {
      expect(error).toMatchObject({ status: 429, type: "rate_limit_error", code: "rate_limit_exceeded", retryable: true, retryAfterMs: 2000 });
      expect(error.message).toBe(`${PROVIDER}: Rate limit reached`);
    }
  });

  it("500: api_error, retryable; 401: the gateway's credentials, 502 not retryable", async () => {
    respond = (_req, res) => sendJson(res, 500, { error: { message: "Internal failure", type: "server_error", code: null } });
    expect(await completeError(adapterAt(server.url).complete(ask))).toMatchObject({ status: 500, type: "api_error", retryable: true });
    respond = (_req, res) => sendJson(res, 401, { error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } });
    expect((await streamError(adapterAt(server.url).stream(ask))).error).toMatchObject({ status: 502, code: "upstream_authentication_error", retryable: false });
  });

  it("an unreachable provider: 502, retryable", async () => {
    const closed = await startFakeUpstream();
    const url = closed.url;
    await closed.close();
    expect(await completeError(adapterAt(url).complete(ask))).toMatchObject({ status: 502, code: "upstream_unreachable", retryable: true });
  });
});
