/**
 * The way back from a normalized schema to what the tool expects. Two normalizations change
 * the arguments a model sends, and the tool validates against its own schema:
 * - strict mode makes optional properties required-but-nullable, so a model leaves them out
 *   by sending `null`: such nulls become absent properties again;
 * - Gemini enums are string-only, so `2` comes back as `"2"`: enum values are restored.
 * Only those two are undone; everything else passes through unchanged.
 */
import { mergeAllOf } from "./all-of.ts";
import { derefSchema } from "./deref.ts";
import { newContext, type JsonSchema } from "./types.ts";
import { deepEqual, isSchemaObject, schemaRecord, stringArray, typeList } from "./util.ts";
import { flatMapped } from "../flat-mapped.ts";

function acceptsNull(schema: unknown): boolean {
  if (!isSchemaObject(schema)) return schema !== false;
  if (typeList(schema).includes("null") || schema["nullable"] === true) return true;
  if (Array.isArray(schema["enum"])) return schema["enum"].includes(null);
  if ("const" in schema) return schema["const"] === null;
  const branches = flatMapped([schema["anyOf"], schema["oneOf"]], (b) => (Array.isArray(b) ? b : []));
  if (branches.length > 0) return branches.some(acceptsNull);
  return typeList(schema).length === 0 && !("properties" in schema) && !("items" in schema);
}

function restoreEnum(value: string, schema: JsonSchema): unknown {
  const values = Array.isArray(schema["enum"]) ? schema["enum"] : "const" in schema ? [schema["const"]] : undefined;
  if (values === undefined || values.includes(value)) return value;
  return values.find((v) => typeof v !== "string" && JSON.stringify(v) === value) ?? value;
}

function restoreObject(value: Record<string, unknown>, schema: JsonSchema): Record<string, unknown> {
  const properties = schemaRecord(schema["properties"]);
  const required = stringArray(schema["required"]);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const prop = properties[key];
    if (v === null && prop !== undefined && !required.includes(key) && !acceptsNull(prop)) continue;
    out[key] = isSchemaObject(prop) ? restore(v, prop) : v;
  }
  return out;
}

function restore(value: unknown, input: JsonSchema): unknown {
  const schema = mergeAllOf(input, "#", newContext());
  if (typeof value === "string") return restoreEnum(value, schema);
  if (Array.isArray(value)) {
    const items = schema["items"];
    return isSchemaObject(items) ? value.map((v) => restore(v, items)) : value;
  }
  if (isSchemaObject(value)) return restoreObject(value, schema);
  return value;
}

/** A copy of `args` as the tool's original `inputSchema` expects them. */
export function restoreArguments(args: Record<string, unknown>, originalSchema: JsonSchema | undefined): Record<string, unknown> {
  if (!isSchemaObject(originalSchema)) return { ...args };
  const schema = derefSchema(originalSchema, { cycles: "placeholder" }, newContext());
  const restored = restore(args, schema);
  return isSchemaObject(restored) && !deepEqual(restored, args) ? restored : { ...args };
}
