/** complete(): recorded non-streamed provider bodies served over real HTTP, translated to neutral results. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeUpstream, type FakeUpstream } from "../../helpers/fake-upstream.ts";
import { adapterFor, jsonBody, PROVIDER, simpleRequest } from "./harness.ts";

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeUpstream();
});
afterAll(() => upstream.close());

async function completeFixture(fixture: string) {
  upstream.handle(jsonBody(fixture));
  return adapterFor(upstream).complete(simpleRequest());
}

const reasoningData = (field: string) => ({ origin: PROVIDER, data: { field } });

describe("openai-chat complete()", () => {
  it("Mistral Magistral: the thinking part of the content array is the reasoning, the text part the text", async () => {
    const result = await completeFixture("mistral/mistral-reasoning.json");
    expect(result.model).toBe("magistral-medium-2507");
    expect(result.message.content).toEqual([
      { type: "reasoning", text: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.", providerData: reasoningData("thinking") },
      { type: "text", text: "2 + 2 = 4" },
    ]);
  });

  it("OpenAI text: id, model, text, stop, usage with cache and reasoning counters", async () => {
    const result = await completeFixture("openai-chat/openai-text.json");
    expect(result.id).toBe("chatcmpl-D8Z5f52zQqikDBEKQMQoYcWMcWPeU");
    expect(result.model).toBe("gpt-4.1-nano-2025-04-14");
    expect(result.message.content).toHaveLength(1);
    const [block] = result.message.content;
    expect(block?.type).toBe("text");
    expect(block?.type === "text" && block.text.startsWith("**Holiday Name:** Galaxy Day")).toBe(true);
    expect(block?.type === "text" && block.text.endsWith("dream beyond our world.")).toBe(true);
    expect(result.stopReason).toBe("stop");
    expect(result.usage).toEqual({ inputTokens: 16, outputTokens: 363, cacheReadTokens: 0, reasoningTokens: 0 });
  });

  it("DeepSeek tool call: reasoning_content first, empty content dropped, exact arguments, DeepSeek cache usage", async () => {
    const result = await completeFixture("deepseek/deepseek-tool-call.json");
    expect(result.id).toBe("7a630f5b-b7e6-4878-82f8-d77db164d42b");
    expect(result.model).toBe("deepseek-reasoner");
    const [reasoning, call, ...rest] = result.message.content;
    expect(rest).toEqual([]);
    expect(reasoning).toMatchObject({ type: "reasoning", providerData: reasoningData("reasoning_content") });
    expect(reasoning?.type === "reasoning" && reasoning.text.startsWith("The user is asking for the weather in San Francisco.")).toBe(true);
    expect(call).toEqual({
      type: "tool_call",
      id: "call_00_9V0vrf86Pc9aelHCJMZqnJBo",
      name: "weather",
      arguments: { location: "San Francisco" },
      rawArguments: '{"location": "San Francisco"}',
    });
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 339, outputTokens: 92, cacheReadTokens: 320, reasoningTokens: 48 });
  });

  it("DeepSeek text cut by length: stop reason length, cache from prompt tokens details", async () => {
    const result = await completeFixture("deepseek/deepseek-text.json");
    expect(result.stopReason).toBe("length");
    expect(result.message.content.map((block) => block.type)).toEqual(["text"]);
    expect(result.usage).toEqual({ inputTokens: 13, outputTokens: 300, cacheReadTokens: 0 });
  });

  it("DeepSeek reasoning: reasoning then text, reasoning tokens", async () => {
    const result = await completeFixture("deepseek/deepseek-reasoning.json");
    expect(result.message.content.map((block) => block.type)).toEqual(["reasoning", "text"]);
    expect(result.message.content[1]).toEqual({
      type: "text",
      text: 'The word "strawberry" contains three instances of the letter "r": one after the "t" and two before the "y".',
    });
    expect(result.usage).toEqual({ inputTokens: 18, outputTokens: 345, cacheReadTokens: 0, reasoningTokens: 315 });
  });

  it("xAI text with reasoning_content", async () => {
    const result = await completeFixture("xai/xai-text.json");
    expect(result.message.content).toEqual([
      {
        type: "reasoning",
        text: 'First, the user said: "Say a single word." That\'s straightforward. They want me to respond with just one word.\n\nResponse: I\'ll go with "Hello" as it\'s a common greeting and keeps it simple.',
        providerData: reasoningData("reasoning_content"),
      },
      { type: "text", text: "Hello" },
    ]);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 1, cacheReadTokens: 2, reasoningTokens: 228 });
  });

  it("xAI tool call (no index on the call)", async () => {
    const result = await completeFixture("xai/xai-tool-call.json");
    expect(result.message.content.map((block) => block.type)).toEqual(["reasoning", "tool_call"]);
    expect(result.message.content[1]).toEqual({
      type: "tool_call",
      id: "call_93562515",
      name: "weather",
      arguments: { location: "San Francisco" },
      rawArguments: '{"location":"San Francisco"}',
    });
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 291, outputTokens: 26, cacheReadTokens: 244, reasoningTokens: 189 });
  });

  it("Groq tool call with `{}` arguments and timing-laden usage", async () => {
    const result = await completeFixture("groq/groq-tool-call.json");
    expect(result.message.content).toEqual([
      { type: "tool_call", id: "ax9fskhev", name: "weather", arguments: {}, rawArguments: "{}" },
    ]);
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 218, outputTokens: 15 });
  });

  it("Groq reasoning arrives in `reasoning`, tagged with that field", async () => {
    const result = await completeFixture("groq/groq-reasoning.json");
    const [reasoning, text] = result.message.content;
    expect(reasoning).toMatchObject({ type: "reasoning", providerData: reasoningData("reasoning") });
    expect(reasoning?.type === "reasoning" && reasoning.text.startsWith('Okay, so the user is asking how many times the letter "r"')).toBe(true);
    expect(text?.type === "text" && text.text.startsWith('The word "strawberry" contains **3** instances')).toBe(true);
    expect(result.usage).toEqual({ inputTokens: 17, outputTokens: 649, reasoningTokens: 570 });
  });

  it("Groq text", async () => {
    const result = await completeFixture("groq/groq-text.json");
    expect(result.model).toBe("llama-3.3-70b-versatile");
    expect(result.message.content.map((block) => block.type)).toEqual(["text"]);
    expect(result.stopReason).toBe("stop");
  });

  it("Alibaba Qwen tool call (content empty string)", async () => {
    const result = await completeFixture("alibaba/alibaba-tool-call.json");
    expect(result.message.content).toEqual([
      {
        type: "tool_call",
        id: "call_962bfd2ab8f54b89a1161356",
        name: "weather",
        arguments: { location: "San Francisco" },
        rawArguments: '{"location": "San Francisco"}',
      },
    ]);
    expect(result.usage).toEqual({ inputTokens: 295, outputTokens: 22, cacheReadTokens: 0 });
  });

  it("Alibaba Qwen reasoning", async () => {
    const result = await completeFixture("alibaba/alibaba-reasoning.json");
    expect(result.message.content.map((block) => block.type)).toEqual(["reasoning", "text"]);
    expect(result.usage).toEqual({ inputTokens: 24, outputTokens: 1668, cacheReadTokens: 0, reasoningTokens: 1353 });
  });

  it("Mistral tool call without `type` or `index`", async () => {
    const result = await completeFixture("mistral/mistral-tool-call.json");
    expect(result).toEqual({
      id: "b3999b8c93e04e11bcbff7bcab829667",
      model: "mistral-small-latest",
      message: {
        role: "assistant",
        content: [
          {
            type: "tool_call",
            id: "gSIMJiOkT",
            name: "weather",
            arguments: { location: "San Francisco" },
            rawArguments: '{"location": "San Francisco"}',
          },
        ],
      },
      stopReason: "tool_calls",
      usage: { inputTokens: 124, outputTokens: 22 },
    });
  });

  it("Cerebras: `reasoning` field and a no-argument tool call", async () => {
    const result = await completeFixture("cerebras/cerebras-structured-output-tools.1.json");
    expect(result.message.content.map((block) => block.type)).toEqual(["reasoning", "tool_call"]);
    expect(result.message.content[0]).toMatchObject({ providerData: reasoningData("reasoning") });
    expect(result.message.content[1]).toEqual({
      type: "tool_call",
      id: "85e4fd267",
      name: "nonUsefulTool",
      arguments: {},
      rawArguments: "{}",
    });
    expect(result.usage).toEqual({ inputTokens: 322, outputTokens: 65, cacheReadTokens: 256, reasoningTokens: 58 });
  });

  it("Cerebras: content AND tool calls in one message keep both, in order", async () => {
    const result = await completeFixture("cerebras/cerebras-structured-output-tools.2.json");
    expect(result.message.content.map((block) => block.type)).toEqual(["reasoning", "text", "tool_call"]);
    expect(result.message.content[1]).toEqual({ type: "text", text: '{"result":"2026"}' });
    expect(result.stopReason).toBe("tool_calls");
  });

  it("xAI through the generic openai-compatible path", async () => {
    const result = await completeFixture("openai-compatible/xai-tool-call.json");
    expect(result.message.content[1]).toMatchObject({ id: "call_46427107", name: "weather", arguments: { location: "San Francisco" } });
    expect(result.usage).toEqual({ inputTokens: 307, outputTokens: 26, cacheReadTokens: 244, reasoningTokens: 255 });
  });
});
