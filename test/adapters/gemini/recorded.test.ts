/**
 * Gemini traffic recorded against the real API (test/fixtures/providers/google: Google AI Studio
 * and Vertex AI, see its README) replayed through the adapter over real HTTP, by a fake that
 * also refuses what Gemini refuses. The answers become neutral results; sent back in the next
 * request, their thought signatures are where they came from, byte for byte.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ChatResult, Message, ReasoningBlock, TextBlock, ToolCallBlock } from "../../../src/core/index.ts";
import { chunkLines, readJsonFixture } from "../../helpers/fake-upstream.ts";
import { adapterAt, collect, lastResult, PROVIDER, replayServer, request, userText } from "./support.ts";

let server: Awaited<ReturnType<typeof replayServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const fixture = (name: string) => `google/${name}`;
/** The signatures of a fixture, in order (what Gemini issued). */
const signaturesOf = (lines: string[]): string[] => lines.flatMap((line) => [...line.matchAll(/"thoughtSignature":"([^"]+)"/g)].map((m) => m[1]!));

async function streamed(name: string, model = "gemini-3-pro-preview"): Promise<{ result: ChatResult; events: Awaited<ReturnType<typeof collect>> }> {
  server = await replayServer([fixture(name)]);
  const events = await collect(adapterAt(server.url).stream(request([userText("hi")], { model })));
  return { result: lastResult(events), events };
}

const calls = (result: ChatResult) => result.message.content.filter((b): b is ToolCallBlock => b.type === "tool_call");
const texts = (result: ChatResult) => result.message.content.filter((b): b is TextBlock => b.type === "text");

describe("recorded text answers", () => {
  it("streamed (gemini-3-pro-preview): one text block, its signature from the last empty part, usage with thoughts", async () => {
    const lines = chunkLines(fixture("google-text.chunks.txt"));
    const { result, events } = await streamed("google-text.chunks.txt");
    expect(result.message.content).toEqual([
      { type: "text", text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y', providerData: { origin: PROVIDER, data: { thoughtSignature: signaturesOf(lines)[0] } } },
    ]);
    expect(result).toMatchObject({ id: "bH6LaZW8Fp_3nsEPqtaSwQ4", model: "gemini-3-pro-preview", stopReason: "stop" });
    // candidates 23 + thoughts 185: the neutral output counts reasoning.
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 208, reasoningTokens: 185 });
    expect(events.map((e) => e.type)).toEqual(["start", "text_start", "text_delta", "text_delta", "text_end", "usage", "done"]);
  });

  it("not streamed: the same shape (the source shortened its signatures)", async () => {
    server = await replayServer([fixture("google-text.json")]);
    const result = await adapterAt(server.url).complete(request([userText("hi")]));
    const body = readJsonFixture(fixture("google-text.json"));
    expect(result.message.content).toEqual([{ type: "text", text: body.candidates[0].content.parts[0].text, providerData: { origin: PROVIDER, data: { thoughtSignature: body.candidates[0].content.parts[0].thoughtSignature } } }]);
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 272, reasoningTokens: 244 });
  });

  it("reasoning model, streamed and not: the thinking is counted, the signature kept", async () => {
    const { result } = await streamed("google-reasoning.chunks.txt");
    expect(texts(result)[0]!.text).toBe('There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.');
    expect(texts(result)[0]!.providerData?.data["thoughtSignature"]).toMatch(/^Eo0HCooHAb4/);
    expect(result.usage.reasoningTokens).toBe(256);
    await server!.close();
    server = await replayServer([fixture("google-reasoning.json")]);
    const plain = await adapterAt(server.url).complete(request([userText("hi")]));
    expect(plain.usage).toEqual({ inputTokens: 9, outputTokens: 311, reasoningTokens: 282 });
  });

  it("the answer's signature goes back on that text part in the next request", async () => {
    const lines = chunkLines(fixture("google-text.chunks.txt"));
    server = await replayServer([fixture("google-text.chunks.txt"), fixture("google-text.json")]);
    const adapter = adapterAt(server.url);
    const first = lastResult(await collect(adapter.stream(request([userText("How many rs?")]))));
    await adapter.complete(request([userText("How many rs?"), first.message, userText("And in raspberry?")]));
    expect(server.requests[1]!.body.contents).toEqual([
      { role: "user", parts: [{ text: "How many rs?" }] },
      { role: "model", parts: [{ text: 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y', thoughtSignature: signaturesOf(lines)[0] }] },
      { role: "user", parts: [{ text: "And in raspberry?" }] },
    ]);
    expect(server.rejections).toEqual([]);
  });
});

describe("recorded function calls", () => {
  const weather = { name: "weather", inputSchema: { type: "object", properties: { location: { type: "string" } }, required: ["location"] } };

  it.each(["google-tool-call.chunks.txt", "google-tool-call-gemini3.chunks.txt"])("%s: a whole call with its signature; the full signature goes back byte for byte", async (name) => {
    const lines = chunkLines(fixture(name));
    const [signature] = signaturesOf(lines);
    server = await replayServer([fixture(name), fixture("google-text.json")], { issued: new Set([signature!]) });
    const adapter = adapterAt(server.url);
    const events = await collect(adapter.stream(request([userText("Weather in SF?")], { tools: [weather] })));
    const result = lastResult(events);
    const [call] = calls(result);
    expect(call).toMatchObject({ name: "weather", arguments: { location: "San Francisco" }, rawArguments: '{"location":"San Francisco"}' });
    expect(call!.id).toMatch(/^call_/);
    expect(call!.providerData).toEqual({ origin: PROVIDER, data: { thoughtSignature: signature } });
    expect(result.stopReason).toBe("tool_calls");
    expect(events.find((e) => e.type === "tool_call_start")).toMatchObject({ index: 0, id: call!.id, name: "weather", providerData: call!.providerData });

    const history: Message[] = [userText("Weather in SF?"), result.message, { role: "tool", content: [{ type: "tool_result", callId: call!.id, name: "weather", content: [{ type: "text", text: "18°C" }], isError: false }] }];
    await adapter.complete(request(history, { tools: [weather] }));
    expect(server.rejections).toEqual([]);
    const sent = server.requests[1]!.body;
    // No id on the wire (Gemini gave none): the response pairs with its call by order and name.
    expect(sent.contents[1]).toEqual({ role: "model", parts: [{ functionCall: { name: "weather", args: { location: "San Francisco" } }, thoughtSignature: signature }] });
    expect(sent.contents[2]).toEqual({ role: "user", parts: [{ functionResponse: { name: "weather", response: { output: "18°C" } } }] });
    expect(sent.contents[1].parts[0].thoughtSignature.length).toBe(signature!.length);
  });

  it("not streamed: the call and its (shortened) signature", async () => {
    server = await replayServer([fixture("google-tool-call.json")]);
    const result = await adapterAt(server.url).complete(request([userText("Weather in SF?")], { tools: [weather] }));
    const body = readJsonFixture(fixture("google-tool-call.json"));
    expect(calls(result)).toEqual([
      expect.objectContaining({ name: "weather", arguments: { location: "San Francisco" }, providerData: { origin: PROVIDER, data: { thoughtSignature: body.candidates[0].content.parts[0].thoughtSignature } } }),
    ]);
    expect(result.stopReason).toBe("tool_calls");
    expect(result.usage).toEqual({ inputTokens: 29, outputTokens: 908, reasoningTokens: 893 });
  });

  it("Vertex AI, arguments streamed in pieces: two consecutive calls assembled, the signature on the first only", async () => {
    const { result, events } = await streamed("google-stream-tool-call-arguments.chunks.txt", "gemini-3.1-pro-preview");
    const [first, second] = calls(result);
    expect(calls(result)).toHaveLength(2);
    expect(first).toMatchObject({ name: "getWeather", arguments: { location: "Boston" } });
    expect(second).toMatchObject({ name: "getWeather", arguments: { location: "San Francisco" } });
    expect(first!.providerData?.data["thoughtSignature"]).toMatch(/^CiMBjz1rX25K/);
    expect(second!.providerData).toBeUndefined();
    expect(first!.id).not.toBe(second!.id);
    expect(result.usage).toEqual({ inputTokens: 26, outputTokens: 155, reasoningTokens: 132 });
    expect(events.filter((e) => e.type === "tool_call_end").map((e) => (e as { index: number }).index)).toEqual([0, 1]);
  });

  it("Vertex AI: a thought, a call without arguments, then three parallel calls whose arguments stream", async () => {
    const { result } = await streamed("google-stream-no-args-tool-call.chunks.txt", "gemini-3-flash-preview");
    const [thought, ...rest] = result.message.content;
    expect(thought).toMatchObject({ type: "reasoning", providerData: { origin: PROVIDER } });
    expect((thought as ReasoningBlock).text).toContain("**Processing User Requests**");
    expect(rest.map((b) => (b as ToolCallBlock).name)).toEqual(["read_theme", "read_screen", "read_screen", "read_screen"]);
    expect(rest.map((b) => (b as ToolCallBlock).arguments)).toEqual([{}, { id: "A" }, { id: "B" }, { id: "C" }]);
    expect((rest[0] as ToolCallBlock).rawArguments).toBe("{}");
    expect((rest[0] as ToolCallBlock).providerData?.data["thoughtSignature"]).toMatch(/^AY89a18a8/);
    expect(result.stopReason).toBe("tool_calls");
  });

  it("Vertex AI: nested objects and arrays streamed by JSON path, strings in several pieces", async () => {
    const { result } = await streamed("google-vertex-stream-tool-call-arguments-nested.1.chunks.txt", "gemini-3.1-pro-preview");
    const [call] = calls(result);
    const recipe = (call!.arguments as { recipe: { name: string; ingredients: { amount: string; name: string }[]; steps: string[] } }).recipe;
    expect(recipe.name).toBe("Lasagna");
    expect(recipe.ingredients).toHaveLength(10);
    expect(recipe.ingredients[0]).toEqual({ amount: "16 oz", name: "Lasagna noodles" });
    expect(recipe.ingredients[9]).toEqual({ amount: "1/2 tsp", name: "Pepper" });
    expect(recipe.steps).toHaveLength(10);
    expect(recipe.steps[1]).toBe("Cook lasagna noodles according to package directions, drain and set aside.");
    expect(recipe.steps[4]).toBe("In a 9x13 baking dish, spread a thin layer of meat sauce.");
    expect(call!.argumentsError).toBeUndefined();
    expect(JSON.parse(call!.rawArguments)).toEqual(call!.arguments);
  });

  it("Vertex AI: a call whose stream ends without the closing empty functionCall (numbers too)", async () => {
    const { result } = await streamed("google-stream-tool-call-array-arguments-missing-terminal-function-call.chunks.txt", "gemini-3-flash-preview");
    expect(calls(result)).toHaveLength(1);
    expect(calls(result)[0]!.arguments).toEqual({
      operations: [
        { action: "add", description: "Fresh red apple", itemid: "apple_001", price: 0.5 },
        { action: "add", description: "Ripe yellow banana", itemid: "banana_001", price: 0.3 },
      ],
    });
    expect(texts(result)).toEqual([]);
  });
});
