/**
 * Context handoff between protocols: a history produced by one provider (its real recorded
 * traffic) is sent to the other, which enforces its own rules. Ids, names and arguments
 * survive; reasoning the target cannot accept is dropped, never sent in a rejected form.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAnthropicAdapter } from "../../src/adapters/anthropic/index.ts";
import { createOpenAIChatAdapter } from "../../src/adapters/openai-chat/index.ts";
import type { ChatResult, Message, ToolCallBlock, ToolMessage } from "../../src/core/index.ts";
import { readFixture, readJsonFixture, sendJson, sendSse, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { replyWith, startFakeAnthropic } from "../helpers/anthropic-rules.ts";

const servers: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function openAiTurn(): Promise<ChatResult> {
  // Real recorded stream: two parallel tool calls from gpt-4o.
  const body = readFixture("openai-chat/f82268f2fefd5cfbc7eeb59c297688be2f6ca0849a6e4f17851b517310841d9b.bin");
  const upstream = await startFakeUpstream((_req, res) => sendSse(res, body));
  servers.push(upstream);
  const adapter = createOpenAIChatAdapter({ id: "openai", baseURL: `${upstream.url}/v1` });
  let result: ChatResult | undefined;
  for await (const event of adapter.stream({ model: "gpt-4o", messages: [{ role: "user", content: [{ type: "text", text: "weather and stock" }] }] })) {
    if (event.type === "done") result = event.result;
  }
  return result!;
}

function resultsFor(calls: ToolCallBlock[]): ToolMessage {
  return { role: "tool", content: calls.map((c) => ({ type: "tool_result", callId: c.id, name: c.name, content: [{ type: "text", text: `result of ${c.name}` }], isError: false })) };
}

describe("cross-provider history", () => {
  it("OpenAI parallel tool calls are accepted by a strict Anthropic, and Anthropic's reply goes back to OpenAI", async () => {
    const turn = await openAiTurn();
    const calls = turn.message.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
    expect(calls.map((c) => c.name)).toEqual(["GetWeatherArgs", "get_stock_price"]);
    const history: Message[] = [
      { role: "system", content: [{ type: "text", text: "be brief" }] },
      { role: "user", content: [{ type: "text", text: "weather and stock" }] },
      // Reasoning from another provider: Anthropic must not receive it (it has no valid signature).
      { role: "assistant", content: [{ type: "reasoning", text: "thinking elsewhere", providerData: { origin: "openai", data: {} } }, ...turn.message.content] },
      resultsFor(calls),
      { role: "user", content: [{ type: "text", text: "and now?" }] },
    ];

    // Real recorded Anthropic answer (a tool_use) as the reply of the strict fake.
    const exchange = readJsonFixture<{ response: { body: unknown } }[]>("anthropic/b38bbf6c-9a76-40ca-b09d-7a3911776e0f.json");
    const recorded = exchange[0]!.response.body;
    const anthropicReply = typeof recorded === "string" ? JSON.parse(recorded) : recorded;
    const anthropic = await startFakeAnthropic(replyWith(anthropicReply));
    servers.push(anthropic);
    const claude = createAnthropicAdapter({ id: "anthropic", baseURL: anthropic.url });
    const reply = await claude.complete({ model: "claude-x", messages: history, tools: [{ name: "GetWeatherArgs", inputSchema: { type: "object" } }, { name: "get_stock_price", inputSchema: { type: "object" } }] });

    const sent = anthropic.requests[0]!.body;
    expect(sent.system).toBeDefined();
    const assistant = sent.messages[1];
    expect(assistant.content.map((b: { type: string }) => b.type)).toEqual(["tool_use", "tool_use"]); // foreign reasoning dropped
    expect(assistant.content.map((b: { id: string }) => b.id)).toEqual(calls.map((c) => c.id));
    expect(assistant.content.map((b: { input: unknown }) => b.input)).toEqual(calls.map((c) => c.arguments));
    expect(sent.messages[2].content.slice(0, 2).map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(calls.map((c) => c.id));

    const replyCalls = reply.message.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
    expect(replyCalls.length).toBeGreaterThan(0);

    // ...and back to OpenAI: Anthropic's tool_use ids and inputs survive.
    const openai = await startFakeUpstream((_req, res) => sendJson(res, 200, readFixture("openai-chat/openai-text.json")));
    servers.push(openai);
    const gpt = createOpenAIChatAdapter({ id: "openai", baseURL: `${openai.url}/v1` });
    await gpt.complete({ model: "gpt-4o", messages: [...history, reply.message, resultsFor(replyCalls)] });
    const wire = openai.requests[0]!.body.messages as { role: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    const back = wire.filter((m) => m.role === "assistant").at(-1)!;
    expect(back.tool_calls!.map((c) => c.id)).toEqual(replyCalls.map((c) => c.id));
    expect(back.tool_calls!.map((c) => JSON.parse(c.function.arguments))).toEqual(replyCalls.map((c) => c.arguments));
    expect(wire.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual([...calls, ...replyCalls].map((c) => c.id));
  });

  it("a strict Anthropic rejects the same history when its rules are broken (the fake could fail)", async () => {
    const anthropic = await startFakeAnthropic(replyWith({}));
    servers.push(anthropic);
    const response = await fetch(`${anthropic.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        max_tokens: 10,
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "t", input: {} }] },
          { role: "user", content: [{ type: "text", text: "no result first" }] },
        ],
      }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("tool_result");
  });
});
