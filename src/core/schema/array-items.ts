/**
 * OpenAI refuses an array schema without `items` in tool parameters, strict or not: "Invalid
 * schema for function 'x': In context=('properties', 'paths'), array schema missing items."
 * (invalid_function_parameters; sigoden/aichat#1049, streamnative/streamnative-mcp-server#26).
 * Many MCP servers send `{ "type": "array" }`. And the draft-07 tuple form `items: [a, b]` is not
 * an `items` schema either. Since every MCP tool goes out in every request, one such tool would
 * break every call: every array node gets an `items` schema.
 */
import { tupleElement } from "./keywords.ts";
import { warn, type Context, type JsonSchema } from "./types.ts";
import { isSchemaObject, omit, typeList } from "./util.ts";
import { mapSubschemas } from "./walk.ts";

/** The items schema of a tuple's elements; `closed` (no element past the tuple) becomes maxItems. */
function fromTuple(node: JsonSchema, tuple: unknown[], rest: unknown): JsonSchema {
  const closed = rest === false;
  const more = rest === true ? {} : closed ? undefined : rest;
  // An empty tuple says nothing about its elements (and `anyOf: []` would be invalid).
  const element = tuple.length === 0 ? (isSchemaObject(more) ? more : {}) : tupleElement(tuple, more);
  return { ...node, items: element, ...(closed && node["maxItems"] === undefined ? { maxItems: tuple.length } : {}) };
}

function fixArray(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  const items = node["items"];
  if (Array.isArray(items)) {
    warn(ctx, `${path}/items`, "tuple (items as a list) turned into a list of its element types");
    return fromTuple(omit(node, "additionalItems"), items, node["additionalItems"]);
  }
  if (isSchemaObject(items)) return node;
  const tuple = node["prefixItems"];
  if (Array.isArray(tuple)) return fromTuple(node, tuple, items);
  // Boolean items are valid JSON Schema but not an items schema: true allows anything, false
  // allows no element at all.
  if (items === false) return { ...node, items: {}, maxItems: 0 };
  if (items === undefined) warn(ctx, path, "array without items: items {} (anything) added");
  return { ...node, items: {} };
}

export function withArrayItems(schema: unknown, path: string, ctx: Context): unknown {
  if (!isSchemaObject(schema)) return schema;
  const node = mapSubschemas(schema, path, (child, childPath) => withArrayItems(child, childPath, ctx));
  return typeList(node).includes("array") ? fixArray(node, path, ctx) : node;
}
