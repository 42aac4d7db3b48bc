/** resolveQuirks / describeQuirks: presets, overrides, and mistakes named with a suggestion. */
import { describe, expect, it } from "vitest";
import { describeQuirks, PRESET_NAMES, PRESETS, resolveQuirks, schemaTargetOf, SWITCH_NAMES } from "../../../src/adapters/quirks/index.ts";

describe("resolveQuirks", () => {
  it("no value is the openai preset", () => {
    expect(resolveQuirks(undefined)).toEqual({ preset: "openai", switches: PRESETS.openai, overrides: [] });
  });

  it("every preset resolves by name, with every switch set", () => {
    for (const name of PRESET_NAMES) {
      const resolved = resolveQuirks(name);
      expect(resolved.preset).toBe(name);
      expect(Object.keys(resolved.switches).sort()).toEqual([...SWITCH_NAMES].sort());
    }
  });

  it("the presets turn on what their provider needs", () => {
    expect(resolveQuirks("zhipu").switches).toMatchObject({ assistantContentString: true, ensureUserMessage: true, toolTypeFunction: true, flattenContent: true });
    expect(resolveQuirks("mistral").switches).toMatchObject({ toolCallIds: "alnum9", bridgeUserAfterTool: true });
    expect(resolveQuirks("gemini").switches).toMatchObject({ functionNames: "gemini", toolSchemas: "gemini", thoughtSignatures: true });
    expect(resolveQuirks("deepseek").switches).toMatchObject({ replayReasoning: "tool-turns", reasoningField: "reasoning_content", replayReasoningExceptModels: [] });
    expect(resolveQuirks("minimax").switches).toMatchObject({ thinkTags: true, reasoningDetails: true });
    for (const local of ["ollama", "vllm", "llamacpp", "lmstudio"]) {
      expect(resolveQuirks(local).switches).toMatchObject({ objectArguments: true, textToolCalls: "hermes" });
    }
    expect(resolveQuirks("vllm").switches.toolChoice).toBe("omit-auto");
    expect(resolveQuirks("groq").switches.retryToolUseFailed).toBe(true);
    expect(resolveQuirks("xai").switches).toEqual({ ...PRESETS.openai, messageNames: false });
  });

  it("an object overrides its preset", () => {
    const resolved = resolveQuirks({ preset: "zhipu", ensureUserMessage: false, textToolCalls: "hermes" });
    expect(resolved.preset).toBe("zhipu");
    expect(resolved.switches).toEqual({ ...PRESETS.zhipu, ensureUserMessage: false, textToolCalls: "hermes" });
    expect(resolved.overrides).toEqual(["ensureUserMessage", "textToolCalls"]);
  });

  it("an object without preset overrides openai", () => {
    expect(resolveQuirks({ thinkTags: true }).switches).toEqual({ ...PRESETS.openai, thinkTags: true });
    expect(resolveQuirks({ replayReasoningExceptModels: ["r1-*"] }).switches.replayReasoningExceptModels).toEqual(["r1-*"]);
  });

  it("resolved switches are copies: changing them leaves the presets alone", () => {
    const resolved = resolveQuirks("deepseek");
    (resolved.switches.replayReasoningExceptModels as string[]).push("x");
    resolved.switches.thinkTags = true;
    expect(PRESETS.deepseek.replayReasoningExceptModels).toEqual([]);
    expect(PRESETS.openai.replayReasoningExceptModels).toEqual([]);
    expect(PRESETS.deepseek.thinkTags).toBe(false);
  });

  it("an unknown preset names it and suggests the closest", () => {
    expect(() => resolveQuirks("zhipuu")).toThrow('unknown quirks preset "zhipuu" (did you mean "zhipu"?)');
    expect(() => resolveQuirks({ preset: "lmstuido" })).toThrow('(did you mean "lmstudio"?)');
    expect(() => resolveQuirks("something-else")).toThrow(/unknown quirks preset "something-else"; known presets: openai, zhipu/);
  });

  it("an unknown switch names it and suggests the closest", () => {
    expect(() => resolveQuirks({ preset: "zhipu", ensureUserMesage: false })).toThrow('unknown quirks switch "ensureUserMesage" (did you mean "ensureUserMessage"?)');
    expect(() => resolveQuirks({ presets: "zhipu" })).toThrow('unknown quirks switch "presets" (did you mean "preset"?)');
  });

  it("a wrong value names the switch and what it takes", () => {
    expect(() => resolveQuirks({ thinkTags: "yes" })).toThrow('quirks switch "thinkTags": expected true or false, got "yes"');
    expect(() => resolveQuirks({ toolCallIds: "alnum8" })).toThrow('quirks switch "toolCallIds": expected one of "as-is", "alnum9", got "alnum8"');
    expect(() => resolveQuirks({ replayReasoningExceptModels: "deepseek-reasoner" })).toThrow("expected an array of model ids");
    expect(() => resolveQuirks({ preset: 3 })).toThrow('quirks "preset": expected a preset name, got 3');
  });
});

describe("describeQuirks", () => {
  it("names the preset and what it turns on", () => {
    expect(describeQuirks(resolveQuirks("openai"))).toBe("openai: OpenAI defaults");
    expect(describeQuirks(resolveQuirks("zhipu"))).toBe("zhipu: maxTokensField=max_tokens, reasoningRequest=thinking, openaiOnlyFields=[], messageNames=false, imageDetail=false, assistantContentString, ensureUserMessage, toolTypeFunction, flattenContent");
    expect(describeQuirks(resolveQuirks("deepseek"))).toBe("deepseek: maxTokensField=max_tokens, openaiOnlyFields=[frequency_penalty, presence_penalty], messageNames=false, imageDetail=false, replayReasoning=tool-turns");
  });

  it("shows overrides", () => {
    expect(describeQuirks(resolveQuirks({ preset: "vllm", toolChoice: "send" }))).toBe(
      "vllm (overrides: toolChoice=send): openaiOnlyFields=[frequency_penalty, presence_penalty], messageNames=false, objectArguments, textToolCalls=hermes",
    );
  });
});

describe("schemaTargetOf", () => {
  it("gemini presets want Gemini schemas, the others OpenAI's", () => {
    expect(schemaTargetOf(resolveQuirks("gemini").switches)).toBe("gemini");
    expect(schemaTargetOf(resolveQuirks("ollama").switches)).toBe("openai");
  });
});
