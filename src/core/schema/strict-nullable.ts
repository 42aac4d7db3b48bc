/**
 * Strict mode has no optional properties: every property is required, and "may be left out"
 * is spelled "may be null" (`type: ["T", "null"]`, or an `anyOf` with `{ type: "null" }`).
 */
import type { JsonSchema } from "./types.ts";
import { isSchemaObject, omit, typeList } from "./util.ts";

const NULL: JsonSchema = { type: "null" };

function isNullSchema(value: unknown): boolean {
  return isSchemaObject(value) && value["type"] === "null";
}

/** The schema, also accepting null. */
export function makeNullable(schema: JsonSchema): JsonSchema {
  const anyOf = schema["anyOf"];
  if (Array.isArray(anyOf)) return anyOf.some(isNullSchema) ? schema : { ...schema, anyOf: [...anyOf, NULL] };
  // `type: ["string", "null"]` next to `enum: ["a"]` would still refuse null, so wrap instead.
  if ("enum" in schema || "const" in schema || typeList(schema).length === 0) {
    const { description, title } = schema;
    const outer: JsonSchema = { anyOf: [omit(schema, "description", "title"), NULL] };
    if (description !== undefined) outer["description"] = description;
    if (title !== undefined) outer["title"] = title;
    return outer;
  }
  const types = typeList(schema);
  return types.includes("null") ? schema : { ...schema, type: [...types, "null"] };
}

/** Whether the schema already accepts null. */
export function acceptsNull(schema: JsonSchema): boolean {
  if (typeList(schema).includes("null")) return true;
  const anyOf = schema["anyOf"];
  return Array.isArray(anyOf) && anyOf.some((b) => isSchemaObject(b) && acceptsNull(b));
}
