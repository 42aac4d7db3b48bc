/**
 * Rewrites draft-04/06/07 spellings into draft 2020-12, the dialect Anthropic validates
 * `input_schema` against ("JSON schema is invalid. It must match JSON Schema draft 2020-12")
 * and the one the other normalizers reason in. Many MCP servers still emit draft-07.
 */
import { warn, type Context, type JsonSchema } from "./types.ts";
import { isSchemaObject, omit } from "./util.ts";
import { mapSubschemas } from "./walk.ts";

/** Draft-04 boolean `exclusiveMinimum: true` next to `minimum` becomes the number form. */
function upgradeExclusive(node: JsonSchema, bound: "minimum" | "maximum", path: string, ctx: Context): JsonSchema {
  const key = bound === "minimum" ? "exclusiveMinimum" : "exclusiveMaximum";
  const flag = node[key];
  if (typeof flag !== "boolean") return node;
  const out = omit(node, key);
  if (flag && typeof node[bound] === "number") {
    out[key] = node[bound];
    delete out[bound];
  }
  warn(ctx, path, `draft-04 boolean ${key} rewritten for draft 2020-12`);
  return out;
}

/** Draft-07 tuples: `items: [a, b]` + `additionalItems` become `prefixItems` + `items`. */
function upgradeTuple(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  if (!Array.isArray(node["items"])) return node;
  const out: JsonSchema = { ...omit(node, "items", "additionalItems"), prefixItems: node["items"] };
  if ("additionalItems" in node) out["items"] = node["additionalItems"];
  warn(ctx, path, "tuple items rewritten as prefixItems");
  return out;
}

/** Draft-07 `dependencies` splits into `dependentRequired` and `dependentSchemas`. */
function upgradeDependencies(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  const deps = node["dependencies"];
  if (!isSchemaObject(deps)) return node;
  // Merged into any 2020-12 spellings already present.
  const required: JsonSchema = { ...(isSchemaObject(node["dependentRequired"]) ? node["dependentRequired"] : {}) };
  const schemas: JsonSchema = { ...(isSchemaObject(node["dependentSchemas"]) ? node["dependentSchemas"] : {}) };
  for (const [k, v] of Object.entries(deps)) (Array.isArray(v) ? required : schemas)[k] = v;
  const out = omit(node, "dependencies");
  if (Object.keys(required).length > 0) out["dependentRequired"] = required;
  if (Object.keys(schemas).length > 0) out["dependentSchemas"] = schemas;
  warn(ctx, path, "dependencies rewritten as dependentRequired/dependentSchemas");
  return out;
}

function upgradeNode(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  let out = upgradeExclusive(node, "minimum", path, ctx);
  out = upgradeExclusive(out, "maximum", path, ctx);
  out = upgradeTuple(out, path, ctx);
  out = upgradeDependencies(out, path, ctx);
  return mapSubschemas(out, path, (child, p) => (isSchemaObject(child) ? upgradeNode(child, p, ctx) : child));
}

/**
 * A copy of the schema in draft 2020-12 spelling. A `$schema` naming another draft is dropped
 * without a warning: it is metadata (nearly every MCP server declares draft-07), and keeping it
 * would make the rewritten schema claim the wrong dialect.
 */
export function upgradeDraft(schema: JsonSchema, ctx: Context): JsonSchema {
  const out = upgradeNode(schema, "#", ctx);
  const declared = out["$schema"];
  return typeof declared === "string" && !declared.includes("2020-12") ? omit(out, "$schema") : out;
}
