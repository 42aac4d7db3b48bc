/**
 * The `gemini` preset: what differs between Gemini model generations, as data keyed by model
 * name. The first matching row wins; fields a row leaves out come from DEFAULT_TRAITS (an unknown
 * model, such as `gemini-flash-latest`, is treated as a current one: signatures replayed and the
 * placeholder used, thinking sent only when the client asked for it in its own terms).
 *
 * Sources: ai.google.dev/gemini-api/docs/thinking (budgets and levels per model),
 * ai.google.dev/gemini-api/docs/thought-signatures (Gemini 3 validates function-call signatures
 * on the current turn; 2.5 returns them but does not require them),
 * ai.google.dev/gemini-api/docs/function-calling (multimodal function responses: Gemini 3).
 */
import type { WireThinkingLevel } from "./wire.ts";

export interface ThinkingBudget {
  min: number;
  max: number;
  /** Whether a budget of 0 turns thinking off (2.5 Flash); Pro models always think. */
  canDisable: boolean;
}

export interface GeminiModelTraits {
  /**
   * How thinking is asked for: `level` (`thinkingConfig.thinkingLevel`, Gemini 3), `budget`
   * (`thinkingBudget`, Gemini 2.5), `none` (the model does not think: thinkingConfig is refused),
   * `unknown` (a budget, only when the client asked for reasoning itself).
   */
  thinking: "level" | "budget" | "none" | "unknown";
  /** The levels the model takes, lowest first (level models). */
  levels: readonly WireThinkingLevel[];
  budget: ThinkingBudget;
  /**
   * Function calls of the current turn must carry a thought signature (Gemini 3): a call without
   * one (another provider's, or a client that dropped it and the hidden-steps store missed) gets
   * Gemini's documented placeholder.
   */
  signaturesRequired: boolean;
  /** Whether `systemInstruction` is taken (Gemma on the Gemini API: "Developer instruction is not enabled"). */
  systemInstruction: boolean;
  /** Whether a function response may carry media parts (`functionResponse.parts`, Gemini 3). */
  multimodalFunctionResponses: boolean;
}

const DEFAULT_BUDGET: ThinkingBudget = { min: 0, max: 24576, canDisable: true };

export const DEFAULT_TRAITS: GeminiModelTraits = {
  thinking: "unknown",
  levels: ["LOW", "HIGH"],
  budget: DEFAULT_BUDGET,
  signaturesRequired: true,
  systemInstruction: true,
  multimodalFunctionResponses: false,
};

const GEMINI_3 = { thinking: "level", signaturesRequired: true, multimodalFunctionResponses: true } as const;

/** Model name patterns (without a `models/` or `publishers/google/models/` prefix, lower case). */
export const MODEL_TRAITS: readonly [pattern: RegExp, traits: Partial<GeminiModelTraits>][] = [
  [/^gemini-3(\.\d+)?-flash/, { ...GEMINI_3, levels: ["MINIMAL", "LOW", "MEDIUM", "HIGH"] }],
  [/^gemini-3\.[1-9]\d*-pro/, { ...GEMINI_3, levels: ["LOW", "MEDIUM", "HIGH"] }],
  [/^gemini-3(\.\d+)?-/, { ...GEMINI_3, levels: ["LOW", "HIGH"] }],
  [/^gemini-2\.5-pro/, { thinking: "budget", budget: { min: 128, max: 32768, canDisable: false }, signaturesRequired: false }],
  [/^gemini-2\.5-flash-lite/, { thinking: "budget", budget: { min: 512, max: 24576, canDisable: true }, signaturesRequired: false }],
  [/^gemini-2\.5-/, { thinking: "budget", budget: { min: 1, max: 24576, canDisable: true }, signaturesRequired: false }],
  [/^gemini-(1\.|2\.0-)/, { thinking: "none", signaturesRequired: false }],
  [/^gemma-/, { thinking: "none", signaturesRequired: false, systemInstruction: false }],
];

/** The model's bare name: `models/gemini-2.5-pro` and Vertex's `publishers/google/models/…` alike. */
export function bareModelName(model: string): string {
  return model.slice(model.lastIndexOf("/") + 1).toLowerCase();
}

const cache = new Map<string, GeminiModelTraits>();

export function modelTraits(model: string): GeminiModelTraits {
  let traits = cache.get(model);
  if (traits === undefined) {
    const name = bareModelName(model);
    const row = MODEL_TRAITS.find(([pattern]) => pattern.test(name));
    traits = { ...DEFAULT_TRAITS, ...row?.[1] };
    if (cache.size < 1000) cache.set(model, traits);
  }
  return traits;
}
