/**
 * Turning a top-level union (`anyOf`/`oneOf` of object shapes) into one object schema.
 * Providers want a plain object at the root (Anthropic: "input_schema does not support oneOf,
 * allOf, or anyOf at the top level"; OpenAI: root must be `type: "object"`). The merged object
 * has every property of every shape; only what every shape requires stays required; and the
 * description lists the shapes so the model still knows which combinations are meant.
 */
import { mergeAllOf } from "./all-of.ts";
import { note, withNotes } from "./describe.ts";
import { warn, type Context, type JsonSchema } from "./types.ts";
import { deepEqual, isSchemaObject, looksLikeObject, omit, ptr, schemaRecord, stringArray } from "./util.ts";

/** The values a schema that only lists values allows (`const` or `enum`), else undefined. */
function valueChoice(schema: JsonSchema): unknown[] | undefined {
  if (Object.keys(omit(schema, "const", "enum", "type", "description")).length > 0) return undefined;
  if ("const" in schema) return [schema["const"]];
  return Array.isArray(schema["enum"]) ? schema["enum"] : undefined;
}

/** Alternatives for one property across shapes: one schema, an enum, or an anyOf. */
function combineVariants(variants: JsonSchema[]): JsonSchema {
  const distinct: JsonSchema[] = [];
  for (const v of variants) if (!distinct.some((d) => deepEqual(d, v))) distinct.push(v);
  const first = distinct[0];
  if (first === undefined || distinct.length === 1) return first ?? {};
  // Discriminators (`kind: const "a"` | `kind: const "b"`) read best as one enum.
  const choices = distinct.map(valueChoice);
  const sameType = distinct.every((d) => deepEqual(d["type"], first["type"]));
  if (sameType && choices.every((c) => c !== undefined)) {
    const values = choices.flat();
    return { ...omit(first, "const"), enum: values.filter((v, i) => values.findIndex((w) => deepEqual(v, w)) === i) };
  }
  return { anyOf: distinct };
}

function shapeSummary(shape: JsonSchema): string {
  const required = stringArray(shape["required"]);
  const names = Object.keys(schemaRecord(shape["properties"])).map((n) => (required.includes(n) ? n : `${n}?`));
  return `{${names.join(", ")}}`;
}

function objectShapes(branches: unknown[], path: string, key: string, ctx: Context): { shapes: JsonSchema[]; dropped: unknown[] } {
  const shapes: JsonSchema[] = [];
  const dropped: unknown[] = [];
  branches.forEach((b, i) => {
    const branch = isSchemaObject(b) ? mergeAllOf(b, ptr(path, key, i), ctx) : b;
    if (isSchemaObject(branch) && looksLikeObject(branch)) shapes.push(branch);
    else dropped.push(b);
  });
  return { shapes, dropped };
}

/** The node with its top-level `anyOf`/`oneOf` merged into one object schema. */
export function mergeObjectUnion(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  const key = Array.isArray(node["anyOf"]) ? "anyOf" : "oneOf";
  const branches = node[key];
  if (!Array.isArray(branches)) return node;
  const { shapes, dropped } = objectShapes(branches, path, key, ctx);
  const base = omit(node, key);
  const variants = new Map<string, JsonSchema[]>();
  for (const [name, s] of Object.entries(schemaRecord(base["properties"]))) if (isSchemaObject(s)) variants.set(name, [s]);
  for (const shape of shapes) {
    for (const [name, s] of Object.entries(schemaRecord(shape["properties"]))) {
      if (isSchemaObject(s)) variants.set(name, [...(variants.get(name) ?? []), s]);
    }
  }
  const properties: JsonSchema = {};
  for (const [name, list] of variants) properties[name] = combineVariants(list);
  const inAll = shapes.length === 0 ? [] : shapes.map((s) => stringArray(s["required"])).reduce((a, b) => a.filter((x) => b.includes(x)));
  const required = [...new Set([...stringArray(base["required"]), ...inAll])];
  const notes = shapes.length > 1 ? [note("one of these argument sets", shapes.map(shapeSummary).join(" | "))] : [];
  if (dropped.length > 0) {
    notes.push(note("non-object alternatives not representable here", dropped));
    warn(ctx, ptr(path, key), `${dropped.length} non-object alternative(s) of a top-level ${key} dropped`);
  }
  warn(ctx, path, `top-level ${key} of ${branches.length} alternatives merged into one object`);
  const merged: JsonSchema = { ...base, type: "object", properties };
  if (required.length > 0) merged["required"] = required;
  else delete merged["required"];
  return withNotes(merged, notes);
}
