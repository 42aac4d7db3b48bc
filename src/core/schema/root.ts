/**
 * Every provider wants the arguments schema to be a plain object schema at the root:
 * `{ type: "object", properties: {…} }`, without a top-level union.
 */
import { mergeAllOf } from "./all-of.ts";
import { note, withNotes } from "./describe.ts";
import { warn, type Context, type JsonSchema } from "./types.ts";
import { isSchemaObject, omit, typeList } from "./util.ts";
import { mergeObjectUnion } from "./union.ts";

const EMPTY: JsonSchema = { type: "object", properties: {} };

function fixRootType(node: JsonSchema, ctx: Context): JsonSchema {
  const types = typeList(node);
  if (types.length === 0) return { type: "object", ...omit(node, "type") };
  if (types.length === 1 && types[0] === "object") return node;
  if (types.includes("object")) {
    warn(ctx, "#", `root type ${JSON.stringify(node["type"])} narrowed to "object"`);
    return { ...node, type: "object" };
  }
  // Tool arguments are always an object (MCP requires it); a server declaring otherwise is
  // broken, so its schema is kept only as text for the model.
  warn(ctx, "#", `root type ${JSON.stringify(node["type"])} is not an object; replaced by an empty object schema`);
  return withNotes({ ...EMPTY }, [note("declared input schema", node)]);
}

/** A copy of the schema with an object root, no root `allOf`/`anyOf`/`oneOf`, and `properties`. */
export function ensureObjectRoot(schema: JsonSchema | undefined, ctx: Context): JsonSchema {
  if (!isSchemaObject(schema) || Object.keys(schema).length === 0) return { ...EMPTY };
  let node = mergeAllOf(schema, "#", ctx);
  while (Array.isArray(node["anyOf"]) || Array.isArray(node["oneOf"])) node = mergeObjectUnion(node, "#", ctx);
  node = fixRootType(node, ctx);
  if (!isSchemaObject(node["properties"])) node = { ...node, properties: {} };
  return node;
}
