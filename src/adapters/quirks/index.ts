/**
 * Quirk presets for OpenAI-protocol providers, as data. A caller resolves a provider's `quirks`
 * config value and hands the switches to the OpenAI chat adapter:
 *
 *   const { switches } = resolveQuirks(config.quirks);         // "zhipu", { preset: "vllm", … }
 *   createOpenAIChatAdapter(options, { quirks: switches });
 */
export type { QuirkSwitches, QuirkSwitchName, ResolvedQuirks } from "./types.ts";
export { PENALTY_FIELDS, PRESETS, PRESET_NAMES, isPresetName, type PresetName } from "./presets.ts";
export { resolveQuirks, describeQuirks } from "./resolve.ts";
export { SWITCH_NAMES } from "./switch-specs.ts";
export { schemaTargetOf } from "./schema-target.ts";
export { applyRequestQuirks, RequestQuirks, type QuirkedRequest, type RequestContext, type WireRequest } from "./request/index.ts";
export { ResponseQuirks, type ResponseQuirksOptions } from "./response/index.ts";
export { extractTextToolCalls, TextToolCallParser } from "./response/text-tool-calls.ts";
export { splitThinkTags, ThinkTagSplitter } from "./response/think-tags.ts";
