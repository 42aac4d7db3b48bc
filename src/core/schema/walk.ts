/** Where subschemas live in a schema node, so each normalizer can recurse the same way. */
import type { JsonSchema } from "./types.ts";
import { isSchemaObject, ptr } from "./util.ts";

/** Keywords whose value is one subschema. */
export const SINGLE_KEYWORDS = [
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
] as const;
/** Keywords whose value is a list of subschemas. */
export const LIST_KEYWORDS = ["anyOf", "oneOf", "allOf", "prefixItems"] as const;
/** Keywords whose value maps names to subschemas. */
export const MAP_KEYWORDS = ["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"] as const;

export type Visit = (child: unknown, path: string) => unknown;

function mapList(list: unknown[], path: string, visit: Visit): unknown[] {
  return list.map((child, i) => visit(child, ptr(path, i)));
}

function mapRecord(record: JsonSchema, path: string, visit: Visit): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, child] of Object.entries(record)) out[k] = visit(child, ptr(path, k));
  return out;
}

/**
 * A copy of `node` with `visit` applied to every direct subschema. `skip` names keywords left
 * untouched (e.g. `$defs` while inlining references). Values that are not schemas (enum lists,
 * defaults) are shared with the input, never modified.
 */
export function mapSubschemas(node: JsonSchema, path: string, visit: Visit, skip: string[] = []): JsonSchema {
  const out: JsonSchema = { ...node };
  for (const key of SINGLE_KEYWORDS) {
    if (!(key in node) || skip.includes(key)) continue;
    const value = node[key];
    // Draft-07 tuple form: `items: [a, b]`.
    out[key] = Array.isArray(value) ? mapList(value, ptr(path, key), visit) : visit(value, ptr(path, key));
  }
  for (const key of LIST_KEYWORDS) {
    const value = node[key];
    if (Array.isArray(value) && !skip.includes(key)) out[key] = mapList(value, ptr(path, key), visit);
  }
  for (const key of MAP_KEYWORDS) {
    const value = node[key];
    if (isSchemaObject(value) && !skip.includes(key)) out[key] = mapRecord(value, ptr(path, key), visit);
  }
  return out;
}
