/**
 * A three-turn tool loop (two calls, then the answer) against a fake Responses upstream as strict as OpenAI with `store: false`:
 * it refuses (400, OpenAI's error shape) any request whose input has a function call it issued
 * without, before it, the reasoning item it issued with that call (encrypted content byte-equal),
 * a reasoning item it never issued, a call without its output, or a request that would need server
 * state. The adapter is driven as the loop drives it: each answer's message and the tool results
 * go back whole.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { StrictResponsesUpstream, type Item } from "../../helpers/strict-responses-upstream.ts";
import type { ChatResult, Message, ToolDefinition } from "../../../src/core/index.ts";
import type { ModelAdapter } from "../../../src/adapters/types.ts";
import { adapterAt, collect, lastResult, request, userText } from "./support.ts";

const lookup: ToolDefinition = { name: "lookup", description: "One step", inputSchema: { type: "object", properties: { step: { type: "number" } } } };

let server: FakeUpstream | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs the loop: the answer and the tool results go back each turn, until the model answers. */
async function runLoop(call: (messages: Message[]) => Promise<ChatResult>, history: Message[] = []): Promise<{ results: ChatResult[]; messages: Message[] }> {
  const messages: Message[] = [...history, userText("Do both steps")];
  const results: ChatResult[] = [];
  for (let turn = 0; turn < 5; turn++) {
    const result = await call(messages);
    results.push(result);
    messages.push(result.message);
    const calls = result.message.content.filter((block) => block.type === "tool_call");
    if (calls.length === 0) break;
    messages.push({ role: "tool", content: calls.map((c) => ({ type: "tool_result" as const, callId: c.id, name: c.name, content: [{ type: "text" as const, text: `result of ${c.rawArguments}` }], isError: false })) });
  }
  return { results, messages };
}

describe.each([
  ["streamed", (adapter: ModelAdapter) => async (messages: Message[]) => lastResult(await collect(adapter.stream(request(messages, { tools: [lookup], reasoning: { effort: "medium" } }))))],
  ["not streamed", (adapter: ModelAdapter) => (messages: Message[]) => adapter.complete(request(messages, { tools: [lookup], reasoning: { effort: "medium" } }))],
])("three-turn tool loop against a strict upstream (%s)", (_mode, caller) => {
  it("is never refused, and ends with the answer", async () => {
    const upstream = new StrictResponsesUpstream();
    server = await startFakeUpstream(upstream.handle);
    const adapter = adapterAt(server.url);
    const { results } = await runLoop(caller(adapter));
    expect(upstream.refusals).toEqual([]);
    expect(results.map((r) => r.stopReason)).toEqual(["tool_calls", "tool_calls", "stop"]);
    expect(results.at(-1)?.message.content.at(-1)).toEqual({ type: "text", text: "Both steps done." });
    expect(server.requests).toHaveLength(3);
    // Every earlier reasoning item went back each turn, right before its call.
    const input = server.requests[2]!.body.input as Item[];
    expect(input.map((item) => item.type)).toEqual(["message", "reasoning", "function_call", "function_call_output", "reasoning", "function_call", "function_call_output"]);
    expect(input.filter((item) => item.type === "reasoning").map((item) => item["id"])).toEqual(["rs_0", "rs_1"]);
  });

  it("another provider's reasoning earlier in the conversation is left out, not refused", async () => {
    const upstream = new StrictResponsesUpstream();
    server = await startFakeUpstream(upstream.handle);
    const adapter = adapterAt(server.url);
    const history: Message[] = [
      userText("Earlier question"),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Claude's thinking", providerData: { origin: "anthropic", data: { signature: "sig" } } },
          { type: "reasoning", text: "A client's item", providerData: { origin: "client", data: { item: { id: "rs_client", type: "reasoning", summary: [], encrypted_content: "x" } } } },
          { type: "tool_call", id: "toolu_1", name: "lookup", arguments: { step: 0 }, rawArguments: '{"step":0}' },
        ],
      },
      { role: "tool", content: [{ type: "tool_result", callId: "toolu_1", name: "lookup", content: [{ type: "text", text: "ok" }], isError: false }] },
    ];
    const { results } = await runLoop(caller(adapter), history);
    expect(upstream.refusals).toEqual([]);
    expect(results.at(-1)?.stopReason).toBe("stop");
  });

  it("the upstream does refuse a call whose reasoning is missing (the check is real)", async () => {
    const upstream = new StrictResponsesUpstream();
    server = await startFakeUpstream(upstream.handle);
    const adapter = adapterAt(server.url);
    const first = await caller(adapter)([userText("Do both steps")]);
    const withoutReasoning: Message = { role: "assistant", content: first.message.content.filter((block) => block.type !== "reasoning") };
    const call = first.message.content.find((block) => block.type === "tool_call");
    const error = await caller(adapter)([
      userText("Do both steps"),
      withoutReasoning,
      { role: "tool", content: [{ type: "tool_result", callId: call!.type === "tool_call" ? call!.id : "", content: [{ type: "text", text: "r" }], isError: false }] },
    ]).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 400, type: "invalid_request_error", param: "input", retryable: false });
    expect(upstream.refusals).toEqual([expect.stringContaining("without its required 'reasoning' item: 'rs_0'")]);
  });
});
