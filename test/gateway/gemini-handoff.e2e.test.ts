/**
 * Context handoff by fallback in the middle of an agent loop, between Anthropic and Gemini's own
 * API, both strict fakes (each refuses what its provider refuses). The loop's history was made by
 * one provider and goes on with the other: nothing the second refuses may be sent (another
 * provider's thinking and signatures, ids it does not take, a call of the current turn without a
 * thought signature on Gemini 3), and what it needs is supplied (Gemini's documented placeholder
 * signature, responses paired with their calls by name; Anthropic's tool_use/tool_result pairing).
 */
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { sendJson, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { replyWith, sendAnthropicError, startFakeAnthropic } from "../helpers/anthropic-rules.ts";
import { DOCUMENTED_SKIP, FINAL_ANSWER, geminiError, geminiHandler, sendGeminiSse, startGeminiFake, type GeminiFake, type GeminiRejection } from "../helpers/gemini-native-fake.ts";
import { startFakeUpstream } from "../helpers/fake-upstream.ts";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

async function gateway(providers: Record<string, unknown>, alias: { model: string; fallbacks: string[] }): Promise<OpenAI> {
  const gw: RunningGateway = await startGateway({ providers, models: { agent: alias }, gateway: { retries: { attempts: 1 } } });
  closers.push(() => gw.close());
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
}

const CLAUDE_SIGNATURE = "EqQBCkYIBRgCKkBclaude-signature-of-the-thinking";
const CLAUDE_THINKING = "The user wants an echo; I will call the echo tool.";

describe("Anthropic -> Gemini (gemini-3-pro-preview), mid-loop", () => {
  it.each([false, true])("the loop goes on on Gemini without anything Gemini refuses (stream: %s)", async (stream) => {
    let claudeCalls = 0;
    const claude: FakeUpstream = await startFakeAnthropic(
      (req, res) => {
        if (claudeCalls++ > 0) return sendAnthropicError(res, 529, "overloaded_error", "Overloaded");
        return replyWith({
          id: "msg_1", type: "message", role: "assistant", model: "claude-x", stop_reason: "tool_use", stop_sequence: null,
          usage: { input_tokens: 10, output_tokens: 20 },
          content: [
            { type: "thinking", thinking: CLAUDE_THINKING, signature: CLAUDE_SIGNATURE },
            { type: "tool_use", id: "toolu_01EchoCall", name: "everything__echo", input: { message: "x" } },
          ],
        })(req, res);
      },
      { knownSignatures: new Set([CLAUDE_SIGNATURE]) },
    );
    closers.push(() => claude.close());
    const gemini: GeminiFake = await startGeminiFake({ rounds: 1 });
    closers.push(() => gemini.close());
    const client = await gateway(
      { claude: { type: "anthropic", baseURL: claude.url, apiKey: "k" }, g: { type: "gemini", baseURL: gemini.url, apiKey: "k" } },
      { model: "claude/claude-x", fallbacks: ["g/gemini-3-pro-preview"] },
    );
    const params = { model: "agent", messages: [{ role: "system" as const, content: "Be brief." }, { role: "user" as const, content: "Echo x, then answer." }], reasoning_effort: "low" as const };
    const completion = stream ? await client.chat.completions.stream(params).finalChatCompletion() : await client.chat.completions.create(params);

    expect(gemini.rejections).toEqual([]);
    expect(completion.choices[0]!.message.content).toBe(FINAL_ANSWER);
    if (!stream) expect((completion as unknown as { mcp_gateway: { provider: string } }).mcp_gateway.provider).toBe("g");
    expect(claudeCalls).toBe(2);

    const sent = gemini.chatRequests()[0]!.body;
    expect(sent.systemInstruction).toEqual({ parts: [{ text: "Be brief." }] });
    expect(sent.contents[0]).toEqual({ role: "user", parts: [{ text: "Echo x, then answer." }] });
    // Claude's thinking and its signature are Anthropic's: not sent. The call has no signature of
    // Gemini's, and it is on the current turn: the documented placeholder.
    expect(sent.contents[1]).toEqual({ role: "model", parts: [{ functionCall: { name: "everything__echo", args: { message: "x" } }, thoughtSignature: DOCUMENTED_SKIP }] });
    expect(sent.contents[2]).toEqual({ role: "user", parts: [{ functionResponse: { name: "everything__echo", response: { output: expect.stringContaining("Echo: x") } } }] });
    const raw = JSON.stringify(sent);
    expect(raw).not.toContain(CLAUDE_SIGNATURE);
    expect(raw).not.toContain(CLAUDE_THINKING);
    expect(raw).not.toContain("toolu_01EchoCall");
    // Every MCP tool of server-everything, normalized for Gemini's schema dialect, passed the strict fake.
    expect(sent.tools[0].functionDeclarations.map((d: { name: string }) => d.name)).toContain("everything__echo");
    expect(sent.generationConfig.thinkingConfig).toEqual({ thinkingLevel: "LOW", includeThoughts: true });
  });
});

describe("Gemini -> Anthropic, mid-loop", () => {
  it("Gemini's thoughts and signatures stay with Gemini; Anthropic gets a history it accepts", async () => {
    const rejections: GeminiRejection[] = [];
    const signature = "CiQBgeminiSignatureOfTheFirstCall==";
    let geminiCalls = 0;
    const gemini = await startFakeUpstream(
      geminiHandler((req, res) => {
        if (geminiCalls++ > 0) return sendJson(res, 503, geminiError(503, "The model is overloaded. Please try again later.", "UNAVAILABLE").body);
        const parts = [{ text: "**Echoing**\n\nI will echo.", thought: true }, { functionCall: { name: "everything__echo", args: { message: "y" } }, thoughtSignature: signature }];
        sendGeminiSse(res, [
          { candidates: [{ content: { role: "model", parts: [parts[0]] } }], modelVersion: "gemini-3-pro-preview", responseId: "r1" },
          { candidates: [{ content: { role: "model", parts: [parts[1]] }, finishReason: "STOP" }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, thoughtsTokenCount: 9 }, modelVersion: "gemini-3-pro-preview", responseId: "r1" },
        ]);
      }, { issued: new Set([signature]) }, rejections),
    );
    closers.push(() => gemini.close());
    const claude = await startFakeAnthropic(replyWith({ id: "msg_2", type: "message", role: "assistant", model: "claude-x", stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 30, output_tokens: 5 }, content: [{ type: "text", text: "Echoed." }] }));
    closers.push(() => claude.close());
    const client = await gateway(
      { g: { type: "gemini", baseURL: `${gemini.url}/v1beta`, apiKey: "k" }, claude: { type: "anthropic", baseURL: claude.url, apiKey: "k" } },
      { model: "g/gemini-3-pro-preview", fallbacks: ["claude/claude-x"] },
    );
    const completion = await client.chat.completions.stream({ model: "agent", messages: [{ role: "user", content: "Echo y." }], reasoning_effort: "low" }).finalChatCompletion();
    expect(rejections).toEqual([]);
    expect(completion.choices[0]!.message.content).toBe("Echoed.");
    expect(geminiCalls).toBe(2);
    const sent = claude.requests[0]!.body;
    // The strict Anthropic fake accepted it: tool_use with a valid id, its tool_result right after.
    expect(sent.messages[1].content).toEqual([{ type: "tool_use", id: expect.stringMatching(/^[a-zA-Z0-9_-]+$/), name: "everything__echo", input: { message: "y" } }]);
    expect(sent.messages[2].content[0]).toMatchObject({ type: "tool_result", tool_use_id: sent.messages[1].content[0].id });
    expect(JSON.stringify(sent)).not.toContain(signature);
    expect(JSON.stringify(sent)).not.toContain("I will echo.");
  });
});
