/**
 * Tool parameter schemas in Gemini's OpenAPI subset. MCP tools arrive already normalized (the
 * gateway asks the registry for the `gemini` target); client tools arrive as the client wrote
 * them. Normalizing is idempotent, so every tool goes through the same function.
 *
 * It is also the costliest step of a request, so results are cached by schema object: the
 * registry's schema objects live as long as its tool list (every request after the first is a
 * hit); a client's tools are new objects per request, normalized once for all the model calls
 * of that request (loop iterations, retries, fallbacks), then collected with it. Cached schemas
 * must not be changed in place; no step does (steps are pure).
 *
 * Only inputs are keyed: the normalizer's own outputs never come back as inputs in the gateway
 * (client tools are parsed afresh, the registry normalizes on its own), and every WeakMap entry
 * costs GC work (measured: ~3 µs per entry).
 */
import type { JsonSchema } from "../../../core/index.ts";
import { normalizeSchema } from "../../../core/schema/index.ts";
import type { RequestStep } from "./context.ts";

const normalized = new WeakMap<JsonSchema, JsonSchema>();

/** `parameters` as Gemini accepts them, normalized at most once per schema object. */
export function geminiParameters(schema: JsonSchema | undefined): JsonSchema {
  // No schema: nothing to key a cache on, and nothing costly to do.
  if (typeof schema !== "object" || schema === null) return normalizeSchema(schema, "gemini").schema;
  let out = normalized.get(schema);
  if (out === undefined) {
    out = normalizeSchema(schema, "gemini").schema;
    normalized.set(schema, out);
  }
  return out;
}

export const geminiToolSchemas: RequestStep = (body) => {
  if (!body.tools?.length) return body;
  const tools = body.tools.map((tool) => ({ ...tool, function: { ...tool.function, parameters: geminiParameters(tool.function.parameters) } }));
  return { ...body, tools };
};
