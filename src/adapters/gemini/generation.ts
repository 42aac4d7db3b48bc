/**
 * `generationConfig`: sampling, the token limit, stop sequences, JSON output, and thinking.
 *
 * Thinking follows the model's generation (models.ts): Gemini 3 takes a `thinkingLevel`, Gemini
 * 2.5 a `thinkingBudget` within the model's range (Pro cannot turn thinking off: "Budget 0 is
 * invalid. This model only works in thinking mode."), older models and Gemma refuse
 * `thinkingConfig` altogether. A request translated from another protocol's thinking switch
 * (Claude Code asks every model to think) is sent only to models known to think. When thinking is
 * asked for, `includeThoughts` brings back the thought summaries, which clients see as reasoning.
 */
import type { ChatRequest, ReasoningEffort, ResponseFormat } from "../../core/index.ts";
import { geminiParameters } from "../quirks/request/tool-schemas.ts";
import type { GeminiModelTraits, ThinkingBudget } from "./models.ts";
import type { WireGenerationConfig, WireThinkingConfig, WireThinkingLevel } from "./wire.ts";

/** OpenAI-style effort as a thinking budget in tokens (before the model's range is applied). */
export const BUDGET_BY_EFFORT: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 32768,
};

export const LEVEL_BY_EFFORT: Record<ReasoningEffort, WireThinkingLevel> = {
  none: "MINIMAL",
  minimal: "MINIMAL",
  low: "LOW",
  medium: "MEDIUM",
  high: "HIGH",
  xhigh: "HIGH",
  max: "HIGH",
};

const LEVEL_ORDER: readonly WireThinkingLevel[] = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];

/** An explicit budget as a level: what it would roughly buy. */
function levelForBudget(budget: number): WireThinkingLevel {
  if (budget <= 512) return "MINIMAL";
  if (budget <= 2048) return "LOW";
  if (budget <= 8192) return "MEDIUM";
  return "HIGH";
}

/** The wanted level, or the next one up the model has (its highest, past the top). */
export function fitLevel(wanted: WireThinkingLevel, levels: readonly WireThinkingLevel[]): WireThinkingLevel {
  const rank = LEVEL_ORDER.indexOf(wanted);
  return levels.find((level) => LEVEL_ORDER.indexOf(level) >= rank) ?? levels.at(-1) ?? wanted;
}

export function fitBudget(wanted: number, range: ThinkingBudget): number {
  if (wanted <= 0) return range.canDisable ? 0 : range.min;
  return Math.min(range.max, Math.max(range.min, 1, Math.floor(wanted)));
}

/** The thinking config for this request and model, if one is to be sent. */
export function thinkingConfig(request: ChatRequest, traits: GeminiModelTraits): WireThinkingConfig | undefined {
  const reasoning = request.reasoning;
  if (reasoning === undefined || (reasoning.effort === undefined && reasoning.budgetTokens === undefined)) return undefined;
  if (traits.thinking === "none") return undefined;
  if (traits.thinking === "unknown" && reasoning.translated) return undefined;
  const off = reasoning.budgetTokens !== undefined ? reasoning.budgetTokens <= 0 : reasoning.effort === "none";
  if (traits.thinking === "level") {
    const wanted = reasoning.budgetTokens !== undefined ? levelForBudget(reasoning.budgetTokens) : LEVEL_BY_EFFORT[reasoning.effort ?? "medium"];
    // Gemini 3 cannot turn thinking off: "none" asks for the least there is.
    const level = off ? traits.levels[0] ?? "LOW" : fitLevel(wanted, traits.levels);
    return off ? { thinkingLevel: level } : { thinkingLevel: level, includeThoughts: true };
  }
  const budget = fitBudget(reasoning.budgetTokens ?? BUDGET_BY_EFFORT[reasoning.effort ?? "medium"], traits.budget);
  return budget === 0 || off ? { thinkingBudget: budget } : { thinkingBudget: budget, includeThoughts: true };
}

/**
 * JSON output: `application/json`, and for a schema with an object root Gemini's schema dialect
 * (`responseSchema`, taken by every model); another root (an array) would be changed by that
 * dialect's object root, so it goes as plain JSON Schema (`responseJsonSchema`, Gemini 2.5 on).
 */
function responseFormat(format: ResponseFormat | undefined): Partial<WireGenerationConfig> {
  switch (format?.type) {
    case undefined:
    case "text":
      return {};
    case "json_object":
      return { responseMimeType: "application/json" };
    case "json_schema": {
      const root = format.schema["type"];
      if (root === undefined || root === "object") return { responseMimeType: "application/json", responseSchema: geminiParameters(format.schema) };
      return { responseMimeType: "application/json", responseJsonSchema: format.schema };
    }
  }
}

/** Thinking tokens count toward the output limit: an explicit budget above it is added on top. */
function maxOutputTokens(limit: number | undefined, thinking: WireThinkingConfig | undefined): number | undefined {
  const budget = thinking?.thinkingBudget;
  if (limit === undefined || budget === undefined || budget <= 0 || limit > budget) return limit;
  return budget + limit;
}

export function toGenerationConfig(request: ChatRequest, traits: GeminiModelTraits, defaultMaxTokens: number | undefined): WireGenerationConfig | undefined {
  const thinking = thinkingConfig(request, traits);
  const limit = maxOutputTokens(request.maxTokens ?? defaultMaxTokens, thinking);
  const config: WireGenerationConfig = {
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { topP: request.topP }),
    ...(limit === undefined ? {} : { maxOutputTokens: limit }),
    ...(request.stop?.length ? { stopSequences: request.stop } : {}),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...responseFormat(request.responseFormat),
    ...(thinking ? { thinkingConfig: thinking } : {}),
  };
  return Object.keys(config).length > 0 ? config : undefined;
}
