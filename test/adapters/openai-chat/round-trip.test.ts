/** Neutral -> wire -> (simulated provider) -> neutral keeps ids, names, arguments and text. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage, ChatRequest } from "../../../src/core/index.ts";
import { readJsonFixture, sendJson, sendSse, startFakeUpstream, type FakeUpstream, type RecordedRequest } from "../../helpers/fake-upstream.ts";
import { adapterFor, collect, doneResult, jsonBody, PROVIDER, simpleRequest } from "./harness.ts";
import { PRESETS } from "../../../src/adapters/quirks/presets.ts";

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

const original: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "reasoning", text: "Two lookups needed.", providerData: { origin: PROVIDER, data: { field: "reasoning_content" } } },
    { type: "text", text: "Checking both — un moment ✓" },
    { type: "tool_call", id: "call_A1", name: "weather__get", arguments: { city: "Zürich", days: 3 }, rawArguments: '{"city": "Zürich", "days": 3}' },
    { type: "tool_call", id: "call_B2", name: "files__read", arguments: { path: "notes/ä.txt", lines: [1, 2] }, rawArguments: '{"path":"notes/ä.txt","lines":[1,2]}' },
  ],
};

/** The provider "answers" with the last assistant message it was sent. */
function lastAssistant(req: RecordedRequest): any {
  return [...req.body.messages].reverse().find((message: any) => message.role === "assistant");
}

function echoAsCompletion(req: RecordedRequest, res: Parameters<typeof sendJson>[0]): void {
  const message = lastAssistant(req);
  sendJson(res, 200, { id: "echo-1", object: "chat.completion", model: "echo", choices: [{ index: 0, message, finish_reason: "tool_calls" }] });
}

/** The same message streamed the hard way: text and arguments cut into 3-character pieces. */
function echoAsStream(req: RecordedRequest, res: Parameters<typeof sendSse>[0]): void {
  const message = lastAssistant(req);
  const pieces = (text: string) => text.match(/[\s\S]{1,3}/gu) ?? [];
  const deltas: object[] = [{ role: "assistant", content: "" }];
  if (message.reasoning_content) for (const piece of pieces(message.reasoning_content)) deltas.push({ reasoning_content: piece });
  for (const piece of pieces(message.content ?? "")) deltas.push({ content: piece });
  message.tool_calls?.forEach((call: any, index: number) => {
    deltas.push({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] });
    for (const piece of pieces(call.function.arguments)) deltas.push({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  const frame = (delta: object, finish: string | null) =>
    `data: ${JSON.stringify({ id: "echo-1", object: "chat.completion.chunk", model: "echo", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  sendSse(res, deltas.map((delta) => frame(delta, null)).join("") + frame({}, "tool_calls") + "data: [DONE]\n\n");
}

function conversation(): ChatRequest {
  return { model: "echo", messages: [...simpleRequest().messages, original] };
}

const withoutReasoning = original.content.filter((block) => block.type !== "reasoning");

describe("openai-chat round trip", () => {
  it("complete(): text and tool calls come back identical (reasoning is not sent by default)", async () => {
    upstream.handle(echoAsCompletion);
    const result = await adapterFor(upstream).complete(conversation());
    expect(result.message.content).toEqual(withoutReasoning);
  });

  it("stream(): the same, reassembled from 3-character deltas", async () => {
    upstream.handle(echoAsStream);
    const result = doneResult(await collect(adapterFor(upstream).stream(conversation())));
    expect(result.message.content).toEqual(withoutReasoning);
  });

  it("with reasoning replay switched on, reasoning round-trips too, provider data included", async () => {
    upstream.handle(echoAsStream);
    const adapter = adapterFor(upstream, {}, { quirks: { ...PRESETS.openai, replayReasoning: "all", reasoningField: "reasoning_content" } });
    const result = doneResult(await collect(adapter.stream(conversation())));
    expect(result.message.content).toEqual(original.content);
    upstream.handle(echoAsCompletion);
    expect((await adapter.complete(conversation())).message.content).toEqual(original.content);
  });

  it("a recorded provider tool call goes back on the next turn with its exact id, name and argument text", async () => {
    upstream.handle(jsonBody("deepseek/deepseek-tool-call.json"));
    const adapter = adapterFor(upstream);
    const first = await adapter.complete(simpleRequest("deepseek-reasoner"));
    const recorded = readJsonFixture("deepseek/deepseek-tool-call.json").choices[0].message.tool_calls[0];

    upstream.handle(jsonBody("deepseek/deepseek-reasoning.json"));
    await adapter.complete({
      model: "deepseek-reasoner",
      messages: [
        ...simpleRequest().messages,
        first.message,
        { role: "tool", content: [{ type: "tool_result", callId: recorded.id, content: [{ type: "text", text: "sunny" }], isError: false }] },
      ],
    });
    const sent = upstream.requests.at(-1)!.body.messages;
    expect(sent.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: recorded.id, type: "function", function: { name: recorded.function.name, arguments: recorded.function.arguments } }],
      },
      { role: "tool", tool_call_id: recorded.id, content: "sunny" },
    ]);
  });
});
