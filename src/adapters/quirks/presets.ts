/**
 * Quirk presets as data: one object per provider family. Each starts from the `openai` preset
 * (what api.openai.com needs) and turns on what that provider needs; see types.ts for what each
 * switch does and which provider error it avoids.
 */
import type { QuirkSwitches } from "./types.ts";

const openai: Readonly<QuirkSwitches> = {
  stripToolFieldsWithoutTools: true,
  toolChoice: "send",
  maxTokensField: "as-sent",
  reasoningRequest: "reasoning_effort",
  openaiOnlyFields: ["*"],
  messageNames: true,
  imageDetail: true,
  assistantContentString: false,
  ensureUserMessage: false,
  toolTypeFunction: false,
  flattenContent: false,
  toolCallIds: "as-is",
  bridgeUserAfterTool: false,
  prefixTrailingAssistant: false,
  functionNames: "openai",
  toolSchemas: "as-is",
  thoughtSignatures: false,
  replayReasoning: "off",
  reasoningField: "reasoning_content",
  replayReasoningExceptModels: [],
  thinkTags: false,
  reasoningDetails: false,
  objectArguments: false,
  textToolCalls: "off",
  retryToolUseFailed: false,
};

/**
 * Providers whose API documents only `max_tokens`: a client's `max_completion_tokens` limit is
 * sent under that name, so it is not lost to a field they ignore or refuse.
 */
const maxTokensOnly = { maxTokensField: "max_tokens", messageNames: false, imageDetail: false } as const;

/** The OpenAI-only request fields the gateway passes on (the ingress checks their shape). */
export const OPENAI_ONLY_FIELDS = [
  "frequency_penalty",
  "presence_penalty",
  "logit_bias",
  "service_tier",
  "store",
  "metadata",
  "prediction",
  "verbosity",
  "prompt_cache_key",
  "safety_identifier",
] as const;

/**
 * Mistral (which refuses unknown fields: 422 extra_forbidden), DeepSeek and the local servers
 * document the sampling penalties and get only those. Gemini refuses them too ("Unknown name
 * \"frequency_penalty\": Cannot find field.", and "Penalty is not enabled for models/…" where it
 * knows them), as GLM and MiniMax document none of OpenAI's extras: they get none.
 */
export const PENALTY_FIELDS = ["frequency_penalty", "presence_penalty"] as const;
const noOpenaiExtras = { openaiOnlyFields: [] as readonly string[] };
const penaltiesOnly = { openaiOnlyFields: PENALTY_FIELDS as readonly string[] };
/**
 * Groq: "not supported and will result in a 400 error: … logit_bias …"; it has also refused
 * `metadata` ("`metadata` is not supported with this model") and `store`.
 */
const GROQ_FIELDS = [...PENALTY_FIELDS, "service_tier", "prediction", "verbosity", "prompt_cache_key", "safety_identifier"];

/** Local servers: lenient about what they get, loose about what they send back. */
const local: Readonly<QuirkSwitches> = { ...openai, ...maxTokensOnly, ...penaltiesOnly, objectArguments: true, textToolCalls: "hermes" };

export const PRESETS = {
  openai,
  zhipu: { ...openai, ...maxTokensOnly, ...noOpenaiExtras, reasoningRequest: "thinking", assistantContentString: true, ensureUserMessage: true, toolTypeFunction: true, flattenContent: true },
  minimax: { ...openai, ...maxTokensOnly, ...noOpenaiExtras, thinkTags: true, reasoningDetails: true },
  // `deepseek-reasoner` is the thinking mode today (V3.1 and later) and wants its reasoning back
  // like the others; only the R1-era reasoner refused it (replayReasoningExceptModels is for that).
  deepseek: { ...openai, ...maxTokensOnly, ...penaltiesOnly, replayReasoning: "tool-turns", reasoningField: "reasoning_content" },
  mistral: { ...openai, ...maxTokensOnly, ...penaltiesOnly, imageDetail: true, toolCallIds: "alnum9", bridgeUserAfterTool: true, prefixTrailingAssistant: true },
  gemini: { ...openai, ...maxTokensOnly, ...noOpenaiExtras, functionNames: "gemini", toolSchemas: "gemini", thoughtSignatures: true, ensureUserMessage: true },
  ollama: local,
  // vLLM takes either field.
  vllm: { ...local, maxTokensField: "as-sent", imageDetail: true, toolChoice: "omit-auto" },
  llamacpp: local,
  lmstudio: local,
  groq: { ...openai, openaiOnlyFields: GROQ_FIELDS, messageNames: false, imageDetail: false, retryToolUseFailed: true },
  // xAI needs only what every provider gets (tool_choice stripped without tools; whole tool
  // calls in one chunk are read by the base adapter), but message names, which it does not document.
  xai: { ...openai, messageNames: false },
} as const satisfies Record<string, Readonly<QuirkSwitches>>;

export type PresetName = keyof typeof PRESETS;

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
