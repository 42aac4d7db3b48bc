import type { JsonSchema, SchemaTarget } from "../index.ts";

export type { JsonSchema, SchemaTarget };

/** What every normalizer returns. */
export interface NormalizedSchema {
  schema: JsonSchema;
  /** One line per change, each starting with the JSON pointer of the node it concerns. */
  warnings: string[];
  /**
   * openai-strict only: false when the schema could not be made strict without losing meaning
   * (free-form objects, recursion, size limits). The caller should then send the `openai`
   * normalization with `strict: false` instead.
   */
  strict?: boolean;
}

/** Mutable state threaded through one normalization run. */
export interface Context {
  warnings: string[];
  /** Set by the strict normalizer when it had to give up meaning. */
  lossy: boolean;
}

export function newContext(): Context {
  return { warnings: [], lossy: false };
}

export function warn(ctx: Context, path: string, message: string): void {
  ctx.warnings.push(`${path}: ${message}`);
}
