/**
 * A Responses-only reasoning model behind `type: "openai-responses"`, reached from every door:
 * its encrypted reasoning survives a three-turn tool loop through clients that send back only
 * standard fields (a Chat Completions client drops reasoning entirely; a Messages client keeps
 * thinking blocks; a Responses client echoes items), because the gateway keeps it (hidden steps)
 * or carries it in the client's own fields. The upstream refuses any call sent back without the
 * reasoning item it came with, as OpenAI does with `store: false`.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { StrictResponsesUpstream } from "../helpers/strict-responses-upstream.ts";

let upstream: StrictResponsesUpstream;
let server: FakeUpstream | undefined;
let gw: RunningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await server?.close();
  gw = undefined;
  server = undefined;
});

async function setUp(): Promise<string> {
  upstream = new StrictResponsesUpstream();
  server = await startFakeUpstream(upstream.handle);
  gw = await startGateway({
    mcpServers: {},
    providers: { r: { type: "openai-responses", baseURL: `${server.url}/v1`, apiKey: "k" } },
    models: { codex: { model: "r/gpt-5-codex" } },
    gateway: { retries: { attempts: 1 } },
  });
  return gw.url;
}

const lookupResult = (args: string) => `result of ${args}`;

describe("a Responses-only reasoning model through every door", () => {
  it.each([false, true])("Chat Completions, standard fields only (stream: %s)", async (stream) => {
    const client = new OpenAI({ baseURL: `${await setUp()}/v1`, apiKey: "x", maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { step: { type: "number" } } } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "Do both steps" }];
    for (let turn = 0; turn < 3; turn++) {
      const completion = stream
        ? await client.chat.completions.stream({ model: "codex", messages, tools, reasoning_effort: "medium" }).finalChatCompletion()
        : await client.chat.completions.create({ model: "codex", messages, tools, reasoning_effort: "medium" });
      const message = completion.choices[0]!.message;
      const calls = (message.tool_calls ?? []) as OpenAI.ChatCompletionMessageFunctionToolCall[];
      if (calls.length === 0) {
        expect(message.content).toBe("Both steps done.");
        break;
      }
      // Only the standard fields go back: no reasoning, no provider extras.
      messages.push({ role: "assistant", content: message.content, tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } })) });
      for (const call of calls) messages.push({ role: "tool", tool_call_id: call.id, content: lookupResult(call.function.arguments) });
    }
    expect(upstream.refusals).toEqual([]);
    expect(server!.requests).toHaveLength(3);
  });

  it("Messages (thinking blocks kept by the client)", async () => {
    const client = new Anthropic({ baseURL: await setUp(), apiKey: "x", maxRetries: 0 });
    const tools: Anthropic.Tool[] = [{ name: "lookup", input_schema: { type: "object", properties: { step: { type: "number" } } } }];
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "Do both steps" }];
    let final = "";
    for (let turn = 0; turn < 3; turn++) {
      const message = await client.messages.create({ model: "codex", max_tokens: 1000, thinking: { type: "enabled", budget_tokens: 2000 }, tools, messages });
      const uses = message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
      if (uses.length === 0) {
        final = message.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text).join("");
        break;
      }
      messages.push({ role: "assistant", content: message.content as Anthropic.ContentBlockParam[] });
      messages.push({ role: "user", content: uses.map((u) => ({ type: "tool_result" as const, tool_use_id: u.id, content: lookupResult(JSON.stringify(u.input)) })) });
    }
    expect(final).toBe("Both steps done.");
    expect(upstream.refusals).toEqual([]);
  });

  it("Responses (items echoed, store: false), with reasoning asked back encrypted", async () => {
    const client = new OpenAI({ baseURL: `${await setUp()}/v1`, apiKey: "x", maxRetries: 0 });
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: "lookup", parameters: { type: "object", properties: { step: { type: "number" } } }, strict: false }];
    const input: OpenAI.Responses.ResponseInputItem[] = [{ role: "user", content: "Do both steps" }];
    let final = "";
    for (let turn = 0; turn < 3; turn++) {
      const response = await client.responses.create({ model: "codex", input, tools, store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "medium" } });
      const calls = response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
      if (calls.length === 0) {
        final = response.output_text;
        break;
      }
      input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
      for (const call of calls) input.push({ type: "function_call_output", call_id: call.call_id, output: lookupResult(call.arguments) });
    }
    expect(final).toBe("Both steps done.");
    expect(upstream.refusals).toEqual([]);
  });
});
