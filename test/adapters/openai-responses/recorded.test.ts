/**
 * Responses recorded against the real API (vercel/ai fixtures, see test/fixtures/providers/README.md),
 * served by a local fake over real HTTP and read through the adapter, streamed and not.
 */
import { afterEach, describe, expect, it } from "vitest";
import { readFixture, readJsonFixture, sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { fromResponse } from "../../../src/adapters/openai-responses/index.ts";
import type { Response } from "../../../src/adapters/openai-responses/wire.ts";
import type { ChatResult, Message, ReasoningBlock, ToolDefinition } from "../../../src/core/index.ts";
import { PROVIDER, adapterAt, collect, completeError, eventTypes, lastResult, parsed, recordedResponses, request, sseBody, streamError, userText } from "./support.ts";

let server: FakeUpstream | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Answers the n-th request with the n-th recorded stream. */
async function replayStreams(responses: string[][]): Promise<FakeUpstream> {
  let next = 0;
  server = await startFakeUpstream((_req, res) => {
    const lines = responses[next++];
    if (!lines) throw new Error("more requests than recorded responses");
    sendSse(res, sseBody(lines));
  });
  return server;
}

const ENCRYPTED = "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt";

const calculator: ToolDefinition = {
  name: "calculator",
  description: "A minimal calculator for basic arithmetic. Call it once per step.",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string", enum: ["add", "subtract", "multiply", "divide"] } }, required: ["a", "b", "op"] },
};

/** The items a recorded stream finished (output_item.done), in output order. */
function doneItems(lines: string[]): unknown[] {
  return parsed(lines)
    .filter((event) => event.type === "response.output_item.done")
    .sort((a, b) => a["output_index"] - b["output_index"])
    .map((event) => event["item"]);
}

function terminal(lines: string[]): Response {
  const event = parsed(lines).find((e) => e.type === "response.completed" || e.type === "response.incomplete");
  if (!event) throw new Error("no terminal event");
  return event["response"] as Response;
}

/** What the non-streamed conversion makes of the response the stream ended with, over the items the stream brought. */
const nonStreamed = (lines: string[], model: string): ChatResult => fromResponse({ ...terminal(lines), output: doneItems(lines) } as Response, PROVIDER, model);

describe("recorded multi-step run with encrypted reasoning (4 streamed responses)", () => {
  const responses = recordedResponses(ENCRYPTED);

  it("holds four responses", () => {
    expect(responses).toHaveLength(4);
  });

  it("streams reasoning, then the call: events, blocks, usage, stop reason", async () => {
    await replayStreams(responses);
    const events = await collect(adapterAt(server!.url).stream(request([userText("Compute (12 + 7) * 3 * 10 step by step")], { tools: [calculator] })));
    expect(eventTypes(events)).toEqual(["start", "reasoning_start", "reasoning_delta", "reasoning_end", "tool_call_start", "tool_call_delta", "tool_call_end", "usage", "done"]);
    expect(events[0]).toEqual({ type: "start", id: "resp_01830d662ab3856501693c321345c88190b0de00f3b9975691", model: "gpt-5.1-codex-max" });

    const itemDone = doneItems(responses[0]!)[0] as { encrypted_content: string; summary: { text: string }[] };
    const reasoningEnd = events.find((e) => e.type === "reasoning_end");
    const block = reasoningEnd?.type === "reasoning_end" ? reasoningEnd.block : undefined;
    expect(block?.text).toBe(itemDone.summary[0]!.text);
    expect(block?.providerData).toEqual({ origin: PROVIDER, data: { item: itemDone } });
    // The deltas add up to the block's text.
    const reasoningText = events.flatMap((e) => (e.type === "reasoning_delta" ? [e.delta] : [])).join("");
    expect(reasoningText).toBe(block?.text);

    const callDeltas = events.flatMap((e) => (e.type === "tool_call_delta" ? [e.delta] : [])).join("");
    expect(callDeltas).toBe('{"a":12,"b":7,"op":"add"}');
    expect(events.find((e) => e.type === "tool_call_start")).toEqual({ type: "tool_call_start", index: 0, id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator" });
    const result = lastResult(events);
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 134, outputTokens: 28, cacheReadTokens: 0, reasoningTokens: 0 });
    expect(result.message.content.map((b) => b.type)).toEqual(["reasoning", "tool_call"]);
    expect(result.message.content[1]).toEqual({ type: "tool_call", id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator", arguments: { a: 12, b: 7, op: "add" }, rawArguments: '{"a":12,"b":7,"op":"add"}' });
  });

  it("each streamed result is the non-streamed conversion of the same response", async () => {
    await replayStreams(responses);
    const adapter = adapterAt(server!.url);
    for (const lines of responses) {
      const result = lastResult(await collect(adapter.stream(request([userText("go")], { tools: [calculator] }))));
      expect(result).toEqual(nonStreamed(lines, "gpt-5-mini"));
    }
  });

  it("keeps the reasoning item output_item.done brought (OpenAI encrypts it afresh for response.completed)", async () => {
    await replayStreams(responses);
    const result = lastResult(await collect(adapterAt(server!.url).stream(request([userText("go")]))));
    const completed = fromResponse(terminal(responses[0]!), PROVIDER, "gpt-5-mini");
    const item = (block: unknown) => ((block as ReasoningBlock).providerData!.data["item"] as { encrypted_content: string });
    expect(item(result.message.content[0]).encrypted_content).toBe((doneItems(responses[0]!)[0] as { encrypted_content: string }).encrypted_content);
    // The same item but for the ciphertext: everything else of the two results is equal.
    expect(item(completed.message.content[0]).encrypted_content).not.toBe(item(result.message.content[0]).encrypted_content);
    const withoutCipher = (r: ChatResult) => JSON.parse(JSON.stringify(r).replace(/"encrypted_content":"[^"]*"/g, '"encrypted_content":"…"'));
    expect(withoutCipher(result)).toEqual(withoutCipher(completed));
  });

  it("runs the recorded loop: each call goes back after its reasoning, the last answer is text", async () => {
    await replayStreams(responses);
    const adapter = adapterAt(server!.url);
    const messages: Message[] = [userText("Compute (12 + 7) * 3 * 10 step by step")];
    const results: string[] = ["19", "57", "570"];
    let last: ChatResult | undefined;
    for (let turn = 0; turn < 4; turn++) {
      last = lastResult(await collect(adapter.stream(request(messages, { tools: [calculator], reasoning: { effort: "high" } }))));
      messages.push(last.message);
      const call = last.message.content.find((b) => b.type === "tool_call");
      if (!call || call.type !== "tool_call") break;
      messages.push({ role: "tool", content: [{ type: "tool_result", callId: call.id, name: call.name, content: [{ type: "text", text: results[turn]! }], isError: false }] });
    }
    expect(last?.stopReason).toBe("stop");
    expect(last?.message.content).toEqual([{ type: "text", text: "The final result is **570**." }]);
    const bodies = server!.requests.map((r) => r.body);
    for (const body of bodies) {
      expect(body).toMatchObject({ model: "gpt-5-mini", stream: true, store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "high", summary: "auto" } });
    }
    // The second request carries the first answer back: its reasoning item verbatim, then the call, then the output.
    const input = bodies[1].input as Array<{ type: string; [key: string]: unknown }>;
    expect(input.map((item) => item.type)).toEqual(["message", "reasoning", "function_call", "function_call_output"]);
    expect(input[1]).toEqual(doneItems(responses[0]!)[0]);
    expect(input[2]).toEqual({ type: "function_call", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", name: "calculator", arguments: '{"a":12,"b":7,"op":"add"}' });
    expect(input[3]).toEqual({ type: "function_call_output", call_id: "call_AB6AaRZ1FYZB2RwS6A5vbdqn", output: "19" });
    expect((bodies[3].input as unknown[]).length).toBe(1 + 3 + 2 + 2);
  });
});

describe("recorded non-streamed responses", () => {
  it("reasoning with encrypted content and a text answer", async () => {
    const body = readFixture("openai-responses/openai-reasoning-encrypted-content.1.json");
    const recorded = JSON.parse(body) as Response;
    server = await startFakeUpstream((_req, res) => sendJson(res, 200, body));
    const result = await adapterAt(server.url).complete(request([userText("go")]));
    expect(result.id).toBe(recorded.id);
    expect(result.model).toBe("gpt-5-mini-2025-08-07");
    const [reasoning, text] = result.message.content;
    expect(reasoning).toEqual({ type: "reasoning", text: (recorded.output[0] as { summary: { text: string }[] }).summary.map((s) => s.text).join("\n\n"), providerData: { origin: PROVIDER, data: { item: recorded.output[0] } } });
    expect((reasoning as ReasoningBlock).providerData!.data["item"]).toHaveProperty("encrypted_content");
    expect(text?.type).toBe("text");
    expect(result.stopReason).toBe("stop");
    expect(result.usage.reasoningTokens).toBe(recorded.usage!.output_tokens_details.reasoning_tokens);
    expect(result.usage.inputTokens).toBe(recorded.usage!.input_tokens);
    expect(server.requests[0]!.body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
    expect(server.requests[0]!.body.stream).toBeUndefined();
  });

  it("messages with a phase keep it, to send it back", async () => {
    const body = readJsonFixture<Response>("openai-responses/openai-phase.1.json");
    server = await startFakeUpstream((_req, res) => sendJson(res, 200, body));
    const adapter = adapterAt(server.url);
    const result = await adapter.complete(request([userText("AI news today?")], { model: "gpt-5.3-codex" }));
    expect(result.message.content.map((b) => b.type === "text" && b.providerData?.data["phase"])).toEqual(["commentary", "final_answer"]);
    expect(result.usage).toEqual({ inputTokens: 7243, outputTokens: 423, cacheReadTokens: 3072, reasoningTokens: 58 });
    await adapter.complete(request([userText("AI news today?"), result.message, userText("more")], { model: "gpt-5.3-codex" }));
    const input = server.requests[1]!.body.input as Array<{ type: string; role?: string; phase?: string }>;
    expect(input.filter((item) => item.role === "assistant").map((item) => item.phase)).toEqual(["commentary", "final_answer"]);
  });
});

describe("recorded streams whose result equals the non-streamed conversion of response.completed", () => {
  it.each([
    ["openai-responses/openai-phase.1.chunks.txt", "gpt-5.3-codex"],
    ["azure-openai/azure-text.1.chunks.txt", "gpt-4.1-mini"],
    ["azure-openai/azure-tool-call.1.chunks.txt", "gpt-4.1-mini"],
  ])("%s", async (fixture, model) => {
    const [lines] = recordedResponses(fixture);
    await replayStreams([lines!]);
    const events = await collect(adapterAt(server!.url).stream(request([userText("go")], { model })));
    const result = lastResult(events);
    expect(result).toEqual(fromResponse(terminal(lines!), PROVIDER, model));
    // Every text block was announced by the events, whole.
    const ends = events.flatMap((e) => (e.type === "text_end" ? [e.text] : []));
    expect(ends).toEqual(result.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])));
  });

  it("the Azure tool call: one call, parsed, stop reason tool_calls", async () => {
    const [lines] = recordedResponses("azure-openai/azure-tool-call.1.chunks.txt");
    await replayStreams([lines!]);
    const result = lastResult(await collect(adapterAt(server!.url).stream(request([userText("weather?")]))));
    expect(result.stopReason).toBe("tool_calls");
    expect(result.message.content).toEqual([{ type: "tool_call", id: "call_H5DxLSFnsGhiROnUiDHmgyc8", name: "weather", arguments: { location: "San Francisco" }, rawArguments: '{"location":"San Francisco"}' }]);
  });
});

describe("recorded failures", () => {
  it("an error event mid-stream (insufficient_quota): 429, not retried, after start only", async () => {
    const [lines] = recordedResponses("openai-responses/openai-error.1.chunks.txt");
    await replayStreams([lines!]);
    const { error, seen } = await streamError(adapterAt(server!.url).stream(request([userText("go")])));
    expect(seen.map((e) => e.type)).toEqual(["start"]);
    expect(error).toMatchObject({ status: 429, type: "rate_limit_error", code: "insufficient_quota", provider: PROVIDER, retryable: false });
    expect(error.message).toContain("You exceeded your current quota");
  });

  it("response.failed without an error event before it: the response's error", async () => {
    const [lines] = recordedResponses("openai-responses/openai-error.1.chunks.txt");
    await replayStreams([lines!.filter((line) => JSON.parse(line).type !== "error")]);
    const { error } = await streamError(adapterAt(server!.url).stream(request([userText("go")])));
    expect(error).toMatchObject({ status: 429, code: "insufficient_quota", retryable: false });
  });

  it("an HTTP 429 insufficient_quota body keeps retry-after but is not retried", async () => {
    const body = readFixture("openai-responses/openai-error.1.json");
    server = await startFakeUpstream((_req, res) => sendJson(res, 429, body, { "retry-after": "3" }));
    const adapter = adapterAt(server.url);
    for (const error of [await completeError(adapter.complete(request([userText("go")]))), (await streamError(adapter.stream(request([userText("go")])))).error]) {
      expect(error).toMatchObject({ status: 429, type: "rate_limit_error", code: "insufficient_quota", retryable: false, retryAfterMs: 3000 });
      expect(error.message).toBe(`${PROVIDER}: ${JSON.parse(body).error.message}`);
    }
  });

  it("a 400 for a parameter the model refuses keeps the param", async () => {
    server = await startFakeUpstream((_req, res) => sendJson(res, 400, readFixture("openai-responses/reasoning-model-temperature-error.json")));
    const error = await completeError(adapterAt(server.url).complete(request([userText("go")], { temperature: 0.2 })));
    expect(error).toMatchObject({ status: 400, type: "invalid_request_error", param: "temperature", retryable: false });
    expect(error.message).toBe(`${PROVIDER}: Unsupported parameter: 'temperature' is not supported with this model.`);
    expect(server.requests[0]!.body.temperature).toBe(0.2);
  });
});
