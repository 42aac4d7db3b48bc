/**
 * Per-provider normalization of tool input schemas. Pure functions: the input is never
 * modified, and the same schema always gives the same result and warnings.
 */
import { toAnthropic } from "./to-anthropic.ts";
import { toGemini } from "./to-gemini.ts";
import { toOpenAI } from "./to-openai.ts";
import { toOpenAIStrict, type StrictOptions } from "./to-openai-strict.ts";
import type { JsonSchema, NormalizedSchema, SchemaTarget } from "./types.ts";

export type { NormalizedSchema, SchemaTarget } from "./types.ts";
export type { StrictOptions } from "./to-openai-strict.ts";
export type { StrictLimits } from "./strict-rules.ts";
export { DEFAULT_STRICT_LIMITS } from "./strict-rules.ts";
export { toAnthropic, toGemini, toOpenAI, toOpenAIStrict };
export { restoreArguments } from "./restore-arguments.ts";

export interface NormalizeOptions {
  /** openai-strict only. */
  strict?: StrictOptions;
}

/**
 * The tool input schema as `target` accepts it. A missing or empty schema becomes
 * `{ type: "object", properties: {} }` (or its target spelling). For openai-strict, check
 * `strict` in the result: false means "send the `openai` form with strict: false instead".
 */
export function normalizeSchema(schema: JsonSchema | undefined, target: SchemaTarget, options: NormalizeOptions = {}): NormalizedSchema {
  switch (target) {
    case "openai":
      return toOpenAI(schema);
    case "openai-strict":
      return toOpenAIStrict(schema, options.strict);
    case "anthropic":
      return toAnthropic(schema);
    case "gemini":
      return toGemini(schema);
  }
}
