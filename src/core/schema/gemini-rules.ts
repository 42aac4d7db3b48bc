/**
 * What a Gemini function declaration's `parameters` may contain: the OpenAPI 3.0 subset of the
 * Gemini `Schema` object (ai.google.dev API reference; the js-genai `Schema` type lists the
 * same fields). Unknown keywords are refused ("Unknown name … Cannot find field").
 */
import { note } from "./describe.ts";
import { foreignKeywords } from "./keywords.ts";
import { warn, type Context, type JsonSchema } from "./types.ts";
import { isSchemaObject, jsonTypeOf, omit, ptr } from "./util.ts";

export const GEMINI_KEYWORDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

export const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

/**
 * Formats Gemini accepts per type. For strings the Developer API accepts only these two
 * ("only 'enum' and 'date-time' are supported for STRING type").
 */
export const GEMINI_FORMATS: Record<string, string[]> = {
  string: ["enum", "date-time"],
  number: ["float", "double"],
  integer: ["int32", "int64"],
};

/** Metadata with nothing to tell the model: dropped without a note or a warning. */
const META = new Set(["$schema", "$id", "$comment", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions"]);

/** Keeps `format` only where Gemini supports it; otherwise it becomes a note. */
export function geminiFormat(node: JsonSchema, type: string, path: string, ctx: Context): { node: JsonSchema; notes: string[] } {
  const format = node["format"];
  if (format === undefined || (typeof format === "string" && (GEMINI_FORMATS[type] ?? []).includes(format))) return { node, notes: [] };
  warn(ctx, ptr(path, "format"), `format ${JSON.stringify(format)} is not supported by Gemini for ${type}; moved to description`);
  return { node: omit(node, "format"), notes: [note("format", format)] };
}

/**
 * Gemini enums are string-only ("enum: only allowed for STRING type"). Other values are sent
 * as their JSON text with `type: "string"`; the note keeps the original type visible.
 */
export function geminiEnum(node: JsonSchema, type: string, path: string, ctx: Context): { node: JsonSchema; notes: string[] } {
  const values = node["enum"];
  if (!Array.isArray(values)) return { node, notes: [] };
  if (values.every((v) => typeof v === "string") && type === "string") return { node: { ...node, type: "string" }, notes: [] };
  const original = [...new Set(values.map(jsonTypeOf))].join(" | ");
  const asText = (v: unknown): unknown => (typeof v === "string" ? v : JSON.stringify(v));
  // Bounds of the original type no longer apply to a string; the model still reads them.
  const moved = foreignKeywords(node, "string");
  const out: JsonSchema = { ...omit(node, "format", ...moved), type: "string", enum: values.map(asText) };
  if ("default" in node) out["default"] = asText(node["default"]);
  warn(ctx, ptr(path, "enum"), `enum of ${original} values turned into strings (Gemini enums are string-only)`);
  return { node: out, notes: [`${original} value given as a string`, ...moved.map((k) => note(k, node[k]))] };
}

/** Drops every keyword Gemini does not know; the meaningful ones become notes. */
export function geminiKeywords(node: JsonSchema, path: string, ctx: Context): { node: JsonSchema; notes: string[] } {
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    const openObject = key === "additionalProperties" && (value === true || (isSchemaObject(value) && Object.keys(value).length === 0));
    if (GEMINI_KEYWORDS.has(key)) out[key] = value;
    else if (META.has(key) || openObject) continue;
    else if (key === "additionalProperties" && value === false) warn(ctx, ptr(path, key), "additionalProperties: false dropped (not supported by Gemini)");
    else {
      warn(ctx, ptr(path, key), `${key} is not supported by Gemini; moved to description`);
      notes.push(note(key === "additionalProperties" ? "additional properties" : key, value));
    }
  }
  return { node: out, notes };
}
