/**
 * Anthropic `input_schema`: full JSON Schema draft 2020-12, but `type` is required at the root
 * ("input_schema.type: Field required") and a root `oneOf`/`allOf`/`anyOf` is refused
 * ("input_schema does not support oneOf, allOf, or anyOf at the top level"). Nested unions and
 * recursive references are fine, so they stay.
 */
import { derefSchema } from "./deref.ts";
import { upgradeDraft } from "./draft.ts";
import { ensureObjectRoot } from "./root.ts";
import { newContext, type JsonSchema, type NormalizedSchema } from "./types.ts";
import { isSchemaObject } from "./util.ts";

export function toAnthropic(schema: JsonSchema | undefined): NormalizedSchema {
  const ctx = newContext();
  const inlined = isSchemaObject(schema) ? upgradeDraft(derefSchema(schema, { cycles: "keep" }, ctx), ctx) : undefined;
  return { schema: ensureObjectRoot(inlined, ctx), warnings: ctx.warnings };
}
