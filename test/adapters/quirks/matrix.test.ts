/**
 * The scripted conversation (question -> parallel tool calls -> results -> answer), streamed and
 * not, through the adapter with each preset against that provider's strict fake. A fake refuses
 * what its provider refuses, with the provider's own error, so a pass means the preset made the
 * conversation acceptable to it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { PRESET_NAMES } from "../../../src/adapters/quirks/index.ts";
import type { ChatResult } from "../../../src/core/index.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../../helpers/strict-fakes/index.ts";
import { FINAL_ANSWER, TIME_ARGS, WEATHER_ARGS } from "../../helpers/strict-fakes/conversation.ts";
import { DEEPSEEK_LEGACY_REASONER, DEEPSEEK_REASONING } from "../../helpers/strict-fakes/deepseek.ts";
import type { MiniMaxFamily } from "../../helpers/strict-fakes/minimax.ts";
import { adapterFor, callsOf, converse, MODES, PROVIDER, textOf } from "./harness.ts";

let fake: StrictFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(preset: string): Promise<StrictFake> {
  fake = await startStrictFake(FAMILIES[preset]!());
  return fake;
}

function expectParallelCalls(first: ChatResult): void {
  expect(first.stopReason).toBe("tool_calls");
  const calls = callsOf(first.message);
  expect(calls.map((call) => [call.name, call.arguments, call.argumentsError])).toEqual([
    ["get_weather", WEATHER_ARGS, undefined],
    ["get_time", TIME_ARGS, undefined],
  ]);
  expect(calls.every((call) => call.id !== "")).toBe(true);
  expect(new Set(calls.map((call) => call.id)).size).toBe(2);
}

/** What each provider's conversation must show besides passing. */
const specifics: Record<string, (fake: StrictFake, first: ChatResult) => void> = {
  mistral: (f) => {
    const ids = f.requests[1]!.body.messages.flatMap((m: any) => [...(m.tool_calls ?? []).map((c: any) => c.id), ...(m.tool_call_id ? [m.tool_call_id] : [])]);
    expect(ids).toHaveLength(4);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
  },
  gemini: (f, first) => {
    const [withSignature, without] = callsOf(first.message);
    const signature = [...(f.family as any).issuedSignatures][0];
    expect(withSignature!.providerData).toEqual({ origin: PROVIDER, data: { thoughtSignature: signature } });
    expect(without!.providerData).toBeUndefined();
    const replayed = f.requests[1]!.body.messages.find((m: any) => m.tool_calls).tool_calls;
    expect(replayed[0].extra_content).toEqual({ google: { thought_signature: signature } });
    expect(replayed[1].extra_content).toBeUndefined();
  },
  deepseek: (f) => {
    const assistant = f.requests[1]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.reasoning_content).toBe(DEEPSEEK_REASONING);
  },
  minimax: (f, first) => {
    expect(textOf(first.message)).toBe("Let me look both up.");
    expect(first.message.content[0]).toMatchObject({ type: "reasoning", text: "\nThe user asks two things. I will call both tools.\n" });
    const assistant = f.requests[1]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.content).toBe((f.family as MiniMaxFamily).sent[0]!.content);
  },
  vllm: (f) => {
    expect(f.requests[0]!.body.tool_choice).toBeUndefined();
  },
  zhipu: (f) => {
    const assistant = f.requests[1]!.body.messages.find((m: any) => m.role === "assistant");
    expect(assistant.content).toBe("");
  },
};

describe("quirk matrix: every preset against its strict fake", () => {
  for (const preset of PRESET_NAMES) {
    for (const mode of MODES) {
      it(`${preset} (${mode}): question -> parallel calls -> results -> answer`, async () => {
        const f = await start(preset);
        const model = preset === "deepseek" ? "deepseek-v4-flash" : "model-x";
        const { first, second } = await converse(adapterFor(f, preset), mode, { model });
        expect(f.rejections).toEqual([]);
        expectParallelCalls(first);
        expect(textOf(second.message)).toBe(FINAL_ANSWER);
        expect(second.stopReason).toBe("stop");
        specifics[preset]?.(f, first);
      });
    }
  }

  for (const mode of MODES) {
    it(`deepseek-reasoner (${mode}), today's thinking mode: its reasoning goes back with the tool turn`, async () => {
      const f = await start("deepseek");
      const { first, second } = await converse(adapterFor(f, "deepseek"), mode, { model: "deepseek-reasoner" });
      expect(f.rejections).toEqual([]);
      expect(first.message.content[0]).toMatchObject({ type: "reasoning", text: DEEPSEEK_REASONING });
      expect(textOf(second.message)).toBe(FINAL_ANSWER);
      expect(f.requests[1]!.body.messages.find((m: any) => m.role === "assistant").reasoning_content).toBe(DEEPSEEK_REASONING);
    });

    it(`an R1-era reasoner listed in replayReasoningExceptModels (${mode}): its reasoning is never sent back`, async () => {
      const f = await start("deepseek");
      const legacy = adapterFor(f, { preset: "deepseek", replayReasoningExceptModels: [DEEPSEEK_LEGACY_REASONER] });
      const { first, second } = await converse(legacy, mode, { model: DEEPSEEK_LEGACY_REASONER });
      expect(f.rejections).toEqual([]);
      expect(first.message.content[0]).toMatchObject({ type: "reasoning", text: DEEPSEEK_REASONING });
      expect(textOf(second.message)).toBe(FINAL_ANSWER);
      expect(f.requests[1]!.body.messages.some((m: any) => "reasoning_content" in m)).toBe(false);
    });
  }

  it("streamed and non-streamed conversations give the same neutral turns", async () => {
    for (const preset of PRESET_NAMES) {
      const f = await start(preset);
      const model = preset === "deepseek" ? "deepseek-v4-flash" : "model-x";
      const plain = await converse(adapterFor(f, preset), "complete", { model });
      const streamed = await converse(adapterFor(f, preset), "stream", { model });
      const shape = (result: ChatResult) =>
        result.message.content.map((block) => (block.type === "tool_call" ? { ...block, id: "*", providerData: block.providerData ? "*" : undefined } : block));
      expect(streamed.first.message.content.map((b) => b.type), preset).toEqual(plain.first.message.content.map((b) => b.type));
      expect(shape(streamed.second), preset).toEqual(shape(plain.second));
      await f.close();
      fake = undefined;
    }
  });
});
