/**
 * OpenAI Chat Completions `parameters` without strict mode: any JSON Schema is accepted, but
 * the root must be `type: "object"` and every array needs `items` (array-items.ts). References are inlined because the `openai` target also
 * serves OpenAI-compatible servers (vLLM, Ollama, GLM, …) that resolve none; recursive ones
 * stay references, which OpenAI itself resolves.
 */
import { withArrayItems } from "./array-items.ts";
import { derefSchema } from "./deref.ts";
import { ensureObjectRoot } from "./root.ts";
import { newContext, type JsonSchema, type NormalizedSchema } from "./types.ts";
import { isSchemaObject } from "./util.ts";

export function toOpenAI(schema: JsonSchema | undefined): NormalizedSchema {
  const ctx = newContext();
  const inlined = isSchemaObject(schema) ? derefSchema(schema, { cycles: "keep" }, ctx) : undefined;
  const root = ensureObjectRoot(inlined, ctx);
  return { schema: withArrayItems(root, "#", ctx) as JsonSchema, warnings: ctx.warnings };
}
