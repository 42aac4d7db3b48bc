/**
 * OpenAI Chat Completions `parameters` without strict mode: any JSON Schema is accepted, but
 * the root must be `type: "object"`. References are inlined because the `openai` target also
 * serves OpenAI-compatible servers (vLLM, Ollama, GLM, …) that resolve none; recursive ones
 * stay references, which OpenAI itself resolves.
 */
import { derefSchema } from "./deref.ts";
import { ensureObjectRoot } from "./root.ts";
import { newContext, type JsonSchema, type NormalizedSchema } from "./types.ts";
import { isSchemaObject } from "./util.ts";

export function toOpenAI(schema: JsonSchema | undefined): NormalizedSchema {
  const ctx = newContext();
  const inlined = isSchemaObject(schema) ? derefSchema(schema, { cycles: "keep" }, ctx) : undefined;
  return { schema: ensureObjectRoot(inlined, ctx), warnings: ctx.warnings };
}
