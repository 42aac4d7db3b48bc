/**
 * Which keywords belong to which JSON type. Used to split `type: ["string", "number"]` into
 * one branch per type (each keeping only its own keywords), and to drop keywords that a
 * provider refuses on the wrong type (Gemini: "properties: only allowed for OBJECT type").
 */
import type { JsonSchema } from "./types.ts";
import { deepEqual, jsonTypeOf, omit, typeList } from "./util.ts";

const FAMILIES: Record<string, string[]> = {
  string: ["minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains", "unevaluatedItems"],
  object: [
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "propertyOrdering",
  ],
};

/** Family of a JSON type (`integer` shares the number keywords). */
function family(type: string): string {
  return type === "integer" ? "number" : type;
}

/** Keywords that only make sense for other types than `type`. */
export function foreignKeywords(node: JsonSchema, type: string): string[] {
  const own = family(type);
  return Object.entries(FAMILIES)
    .filter(([name]) => name !== own)
    .flatMap(([, keys]) => keys)
    .filter((k) => k in node)
    // `format` is also a string-format hint for numbers in OpenAPI (`int32`, `double`).
    .filter((k) => !(k === "format" && own === "number"));
}

/** Keywords of any type family (everything but annotations and combinators). */
export function isTypedKeyword(key: string): boolean {
  return Object.values(FAMILIES).some((keys) => keys.includes(key));
}

/**
 * One schema per non-null type of a multi-type node, each with only its own keywords and the
 * enum values of its type. Shared annotations (description, default…) stay with the caller.
 */
export function splitByType(node: JsonSchema, types: string[]): JsonSchema[] {
  const enumValues = Array.isArray(node["enum"]) ? node["enum"] : undefined;
  return types.map((t) => {
    const typed = Object.fromEntries(Object.entries(node).filter(([k]) => isTypedKeyword(k)));
    const branch: JsonSchema = { type: t, ...omit(typed, ...foreignKeywords(typed, t)) };
    if (enumValues) {
      const own = enumValues.filter((v) => matchesType(v, t));
      if (own.length > 0) branch["enum"] = own;
    }
    return branch;
  });
}

export function matchesType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** The declared type, or the one the keywords imply; undefined when nothing says. */
export function inferType(node: JsonSchema): string | undefined {
  const declared = typeList(node)[0];
  if (declared !== undefined) return declared;
  if ("properties" in node || "required" in node || "additionalProperties" in node) return "object";
  if ("items" in node || "prefixItems" in node) return "array";
  if (Array.isArray(node["enum"])) {
    let kinds = [...new Set(node["enum"].map(jsonTypeOf))];
    if (kinds.includes("number")) kinds = kinds.filter((k) => k !== "integer");
    return kinds.length === 1 ? kinds[0] : undefined;
  }
  if ("pattern" in node || "minLength" in node || "maxLength" in node || "format" in node) return "string";
  if ("minimum" in node || "maximum" in node) return "number";
  return undefined;
}

/**
 * The element schema of a tuple seen as a list (for targets without `prefixItems`): its
 * distinct element types, plus `items` when more elements may follow.
 */
export function tupleElement(tuple: unknown[], items: unknown): unknown {
  const all = items === undefined || items === false ? tuple : [...tuple, items];
  const distinct = all.filter((e, i) => all.findIndex((o) => deepEqual(o, e)) === i);
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}
