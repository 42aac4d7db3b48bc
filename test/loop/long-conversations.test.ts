/**
 * The loop's parts for long conversations, with in-memory models and tools: compaction (tool
 * pairs kept, system prompt kept, the newest turns whole, the summarizer, a context-length error
 * retried once), the tool search, final_answer, and tool-result limits.
 */
import { describe, expect, it } from "vitest";
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { GatewayError, type ChatRequest, type Message, type ToolDefinition } from "../../src/core/index.ts";
import { estimateTextTokens } from "../../src/core/token-estimate.ts";
import { Compactor, FIND_TOOLS, limitResult, planCut, runAgentLoop, type CompactionState, type LoopOptions, type LoopOutcome } from "../../src/loop/index.ts";
import { call, MemoryTools, ScriptedModel, text } from "../helpers/scripted-model.ts";

const user = (t: string): Message => ({ role: "user", content: [{ type: "text", text: t }] });
const system = (t: string): Message => ({ role: "system", content: [{ type: "text", text: t }] });

/** n turns: a question, a tool call, a large result, an answer. */
function history(n: number, resultChars = 4_000): Message[] {
  const messages: Message[] = [system("You are terse.")];
  for (let i = 0; i < n; i++) {
    messages.push(user(`question ${i}`));
    messages.push({ role: "assistant", content: [call(`c${i}`, "read", { i })] });
    messages.push({ role: "tool", content: [{ type: "tool_result", callId: `c${i}`, name: "read", content: [{ type: "text", text: `line ${i} `.repeat(resultChars / 8) }], isError: false }] });
    messages.push({ role: "assistant", content: [text(`answer ${i}`)] });
  }
  return messages;
}

/** Every call answered by the next message(s), no result without its call, the system prompt first. */
function assertWellFormed(messages: readonly Message[]): void {
  expect(messages[0]?.role).toBe("system");
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === "tool") {
      for (const result of message.content) expect(open.delete(result.callId), `orphan result ${result.callId}`).toBe(true);
      continue;
    }
    expect(open.size, "calls left unanswered").toBe(0);
    if (message.role === "assistant") for (const b of message.content) if (b.type === "tool_call") open.add(b.id);
  }
}

async function run(opts: LoopOptions): Promise<LoopOutcome> {
  const loop = runAgentLoop(opts);
  for (;;) {
    const step = await loop.next();
    if (step.done) return step.value;
  }
}

describe("the token estimate", () => {
  it("is within 15% of cl100k on prose, code, JSON and CJK text", () => {
    const samples = [
      "The gateway compacts long conversations before each model call, keeping the system prompt and every tool call with its result. ".repeat(40),
      JSON.stringify({ files: Array.from({ length: 100 }, (_, i) => ({ name: `file_${i}.txt`, size: i * 1234, modified: "2024-05-01T12:00:00Z" })) }, null, 2),
      "上下文压缩在长对话中非常重要。当工具返回大量数据时，网关需要在调用模型之前删除最旧的轮次，同时保留系统提示和工具调用配对。".repeat(20),
      "これは長い会話のテストです。ツールの結果が大きい場合、ゲートウェイは古いターンを削除しなければなりません。".repeat(20),
      "export function add(a: number, b: number): number {\n  return a + b; // the sum\n}\n".repeat(30),
    ];
    for (const sample of samples) {
      const reference = encode(sample).length;
      expect(Math.abs(estimateTextTokens(sample) - reference) / reference, sample.slice(0, 30)).toBeLessThan(0.15);
    }
  });
});

describe("compaction", () => {
  it("cuts whole turns only: the system prompt stays, no pair is split, the newest turns stay whole", () => {
    const messages = history(30);
    const plan = planCut(messages, 5_000, 2);
    expect(plan.state!.removed).toBeGreaterThan(0);
    expect(messages[plan.state!.removed]!.role).toBe("user");
    const kept = messages.slice(plan.state!.removed);
    // The newest two turns are all there.
    expect(kept.slice(-8)).toEqual(messages.slice(-8));
  });

  it("prepares a request under the threshold, notes the cut in the first kept user message, and remembers it", async () => {
    const saved = new Map<string, CompactionState>();
    const memory = { get: async (k: string) => saved.get(k), set: async (k: string, s: CompactionState) => void saved.set(k, s) };
    const compactor = new Compactor({ maxTokens: 8_000, threshold: 0.8, strategy: "trim", keepRecentTurns: 2, memory });
    const request: ChatRequest = { model: "m", messages: history(40) };
    const sent = await compactor.prepare(request);
    assertWellFormed(sent.messages);
    expect(compactor.report!.tokensAfter).toBeLessThanOrEqual(8_000 * 0.8);
    expect(compactor.report!.turnsRemoved).toBeGreaterThan(30);
    const firstUser = sent.messages.find((m) => m.role === "user")!;
    expect((firstUser.content[0] as { text: string }).text).toMatch(/removed to fit the model's context window/);
    expect(saved.size).toBe(1);
    // A new loop (the next request) starts from the remembered cut.
    const again = new Compactor({ maxTokens: 8_000, threshold: 0.8, strategy: "trim", keepRecentTurns: 2, memory });
    const next = await again.prepare({ model: "m", messages: [...history(40), user("one more")] });
    expect(next.messages.length).toBeLessThan(20);
    assertWellFormed(next.messages);
  });

  it("summarize: the summarizer writes the summary of what was cut, once until the threshold is passed again", async () => {
    const summarizer = new ScriptedModel([[text("The user asked 30 questions about lines.")]]);
    const compactor = new Compactor({ maxTokens: 8_000, threshold: 0.8, strategy: "summarize", keepRecentTurns: 2, summarizer: { model: summarizer, modelId: "cheap" } });
    const sent = await compactor.prepare({ model: "m", messages: history(40) });
    expect(summarizer.requests).toHaveLength(1);
    expect(summarizer.requests[0]!.model).toBe("cheap");
    expect(JSON.stringify(summarizer.requests[0]!.messages)).toContain("question 0");
    const firstUser = sent.messages.find((m) => m.role === "user")!;
    expect((firstUser.content[0] as { text: string }).text).toContain("The user asked 30 questions about lines.");
    expect(compactor.report).toMatchObject({ strategy: "summarize", summarized: true, reason: "threshold" });
    await compactor.prepare({ model: "m", messages: [...history(40), user("next")] });
    expect(summarizer.requests).toHaveLength(1);
  });

  it("a long agent run inside one turn: old results are shortened, pairs kept", async () => {
    const messages: Message[] = [system("sys"), user("do it all")];
    for (let i = 0; i < 20; i++) {
      messages.push({ role: "assistant", content: [call(`c${i}`, "read")] });
      messages.push({ role: "tool", content: [{ type: "tool_result", callId: `c${i}`, name: "read", content: [{ type: "text", text: "x ".repeat(2_000) }], isError: false }] });
    }
    const compactor = new Compactor({ maxTokens: 6_000, threshold: 0.8, strategy: "trim", keepRecentTurns: 2 });
    const sent = await compactor.prepare({ model: "m", messages });
    assertWellFormed(sent.messages);
    expect(compactor.report!.tokensAfter).toBeLessThan(6_000);
    expect(sent.messages.at(-1)).toEqual(messages.at(-1));
  });

  it("reads the store only for a conversation long enough to have been cut, and estimates nothing without a budget", async () => {
    const reads: string[] = [];
    const memory = {
      get: async (k: string): Promise<CompactionState | undefined> => {
        reads.push(k);
        return undefined;
      },
      set: async () => undefined,
    };
    const unbudgeted = new Compactor({ threshold: 0.8, strategy: "trim", keepRecentTurns: 2, memory });
    const short: ChatRequest = { model: "m", messages: history(2) };
    expect(await unbudgeted.prepare(short)).toBe(short);
    expect(reads).toEqual([]);
    const long: ChatRequest = { model: "m", messages: history(3) };
    expect(await new Compactor({ threshold: 0.8, strategy: "trim", keepRecentTurns: 2, memory }).prepare(long)).toBe(long);
    expect(reads).toHaveLength(1);
  });

  it("a context-length error from the model: compacted once and retried", async () => {
    let calls = 0;
    const model = new ScriptedModel([[text("fine")]]);
    const failing = {
      complete: async (request: ChatRequest, signal?: AbortSignal) => {
        calls++;
        if (calls === 1) throw new GatewayError("prompt is too long", { status: 400, type: "invalid_request_error", contextOverflow: {} });
        return model.complete(request, signal);
      },
      stream: model.stream.bind(model),
    };
    const outcome = await run({
      model: failing,
      schemaTarget: "openai",
      request: { model: "m", messages: [...history(10), user("last")] },
      tools: new MemoryTools({}),
      stream: false,
      maxIterations: 3,
      context: { threshold: 0.8, strategy: "trim", keepRecentTurns: 2 },
    });
    expect(calls).toBe(2);
    expect(outcome.message.content).toEqual([text("fine")]);
    expect(outcome.compaction).toMatchObject({ reason: "context_length_error" });
    expect(model.requests[0]!.messages.length).toBeLessThan(history(10).length);
  });
});

describe("tool search", () => {
  const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`srv__tool_${i}`, () => `ran ${i}`]));
  many["srv__get_weather"] = () => "sunny";
  class DescribedTools extends MemoryTools {
    override definitions(): ToolDefinition[] {
      return super.definitions("openai").map((d) => ({ ...d, description: d.name === "srv__get_weather" ? "Current weather for a city" : `Does thing number ${d.name.slice(10)} with records`, inputSchema: { type: "object", properties: { city: { type: "string" } } } }));
    }
  }

  it("the search tool stands in for 300 tools; a found tool is offered from the next turn and called", async () => {
    const tools = new DescribedTools(many);
    const model = new ScriptedModel([[call("s1", FIND_TOOLS, { query: "weather in a city" })], [call("w1", "srv__get_weather", { city: "Oslo" })], [text("It is sunny.")]]);
    const outcome = await run({ model, schemaTarget: "openai", request: { model: "m", messages: [user("weather in Oslo?")] }, tools, stream: false, maxIterations: 5, toolSearch: { whenOverTokens: 1_000, maxResults: 5 } });
    expect(model.requests[0]!.tools!.map((t) => t.name)).toEqual([FIND_TOOLS]);
    expect(model.requests[1]!.tools!.map((t) => t.name)).toContain("srv__get_weather");
    expect(model.requests[1]!.tools!.length).toBeLessThanOrEqual(6);
    expect(tools.calls.map((c) => c.name)).toEqual(["srv__get_weather"]);
    expect(outcome.toolSearch).toMatchObject({ tools: 301, found: expect.arrayContaining(["srv__get_weather"]), searches: 1 });
    expect(outcome.toolSearch!.tokensSaved).toBeGreaterThan(5_000);
  });
});

describe("final_answer", () => {
  it("when the turns run out with calls pending: they run, then one call without tools answers", async () => {
    const tools = new MemoryTools({ look: () => "found it" });
    const model = new ScriptedModel([[call("a", "look")], [call("b", "look")], [text("Here is what I found.")]]);
    const outcome = await run({ model, schemaTarget: "openai", request: { model: "m", messages: [user("go")] }, tools, stream: false, maxIterations: 2, finalAnswer: true });
    expect(outcome.stopReason).toBe("stop");
    expect(outcome.finalAnswer).toBe(true);
    expect(tools.calls).toHaveLength(2);
    expect(model.requests[2]!.tools).toEqual([]);
    expect(JSON.stringify(model.requests[2]!.messages.at(-1))).toMatch(/No more tools can be called/);
    expect(outcome.message.content).toEqual([text("Here is what I found.")]);
  });
});

describe("tool result limits", () => {
  it("cuts text at a line end with a note saying how much and how to ask for less", () => {
    const long = Array.from({ length: 2_000 }, (_, i) => `line ${i}: some content here`).join("\n");
    const cut = limitResult({ type: "tool_result", callId: "x", content: [{ type: "text", text: long }], isError: false }, { maxTokens: 500 });
    const texts = cut.content.map((p) => (p.type === "text" ? p.text : ""));
    expect(estimateTextTokens(texts.join(""))).toBeLessThan(700);
    expect(texts[0]!.endsWith("content here")).toBe(true);
    expect(texts.at(-1)).toMatch(/Result cut: it was about \d+ tokens, over the limit of 500/);
    expect(texts.at(-1)).toMatch(/range, page, offset or limit/);
  });

  it("shortens JSON as JSON, and leaves out images that do not fit or that the model cannot see", () => {
    const json = JSON.stringify({ items: Array.from({ length: 1_000 }, (_, i) => ({ id: i, name: `item ${i}` })), total: 1000 });
    const cut = limitResult({ type: "tool_result", callId: "x", content: [{ type: "text", text: json }], structured: JSON.parse(json), isError: false }, { maxTokens: 400 });
    const body = JSON.parse((cut.content[0] as { text: string }).text);
    expect(body.total).toBe(1000);
    expect(body.items.at(-1)).toMatch(/more items/);
    expect(JSON.stringify(cut.structured).length).toBeLessThan(json.length);
    const image = { type: "image" as const, source: { kind: "base64" as const, mediaType: "image/png", data: "A".repeat(4_000) } };
    const blind = limitResult({ type: "tool_result", callId: "y", content: [image, { type: "text", text: "a chart" }], isError: false }, { vision: false });
    expect(blind.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/cannot see images/) });
  });
});
