/** Small helpers over schema nodes, shared by every normalizer. */
import type { JsonSchema } from "./types.ts";

export function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Appends segments to a JSON pointer (`#`, `#/properties/a`), escaping `~` and `/`. */
export function ptr(path: string, ...segments: (string | number)[]): string {
  let out = path;
  for (const s of segments) out += "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1");
  return out;
}

/** The node without the given keys (a new object; the input is left alone). */
export function omit(node: JsonSchema, ...keys: string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) if (!keys.includes(k)) out[k] = v;
  return out;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => deepEqual(v, b[i]));
  }
  if (!isSchemaObject(a) || !isSchemaObject(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
}

/** Declared types of a node as a list (`type: "x"` and `type: ["x", "null"]` alike). */
export function typeList(node: JsonSchema): string[] {
  const t = node["type"];
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return [];
}

/** The JSON Schema type name of a JSON value (`integer` for whole numbers). */
export function jsonTypeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

export function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === "string") : [];
}

export function schemaRecord(value: unknown): Record<string, unknown> {
  return isSchemaObject(value) ? value : {};
}

/** Whether the node describes an object (declared, or implied by object keywords). */
export function looksLikeObject(node: JsonSchema): boolean {
  const types = typeList(node);
  if (types.length > 0) return types.includes("object");
  return "properties" in node || "additionalProperties" in node || "required" in node;
}
