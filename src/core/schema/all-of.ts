/**
 * Merging `allOf` into one schema, for targets that reject it (Gemini, OpenAI strict, a
 * top-level `allOf` anywhere). The merge reads `allOf` as "all of these constraints at once",
 * which is what tool schemas use it for (a base object plus extensions).
 */
import { warn, type Context, type JsonSchema } from "./types.ts";
import { deepEqual, isSchemaObject, omit, ptr, stringArray, typeList } from "./util.ts";

const TAKE_MAX = ["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties"];
const TAKE_MIN = ["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties"];

function mergeTypes(a: JsonSchema, b: JsonSchema): unknown {
  const ta = typeList(a);
  const tb = typeList(b);
  if (ta.length === 0) return b["type"];
  if (tb.length === 0) return a["type"];
  // `integer` is a `number`, so the two meet at `integer`.
  const common = ta.filter((t) => tb.includes(t) || (t === "integer" && tb.includes("number")));
  for (const t of tb) if (t === "integer" && ta.includes("number") && !common.includes(t)) common.push(t);
  if (common.length === 0) return undefined;
  return common.length === 1 ? common[0] : common;
}

function mergeProperties(a: unknown, b: unknown, path: string, ctx: Context): JsonSchema {
  const out: JsonSchema = { ...(isSchemaObject(a) ? a : {}) };
  for (const [k, v] of Object.entries(isSchemaObject(b) ? b : {})) {
    const prev = out[k];
    out[k] = isSchemaObject(prev) && isSchemaObject(v) ? mergeTwo(prev, v, ptr(path, k), ctx) : v;
  }
  return out;
}

function mergeKey(out: JsonSchema, key: string, value: unknown, path: string, ctx: Context): void {
  const prev = out[key];
  if (prev === undefined || deepEqual(prev, value)) {
    out[key] = value;
  } else if (typeof prev === "number" && typeof value === "number" && TAKE_MAX.includes(key)) {
    out[key] = Math.max(prev, value);
  } else if (typeof prev === "number" && typeof value === "number" && TAKE_MIN.includes(key)) {
    out[key] = Math.min(prev, value);
  } else if (key === "description" && typeof prev === "string" && typeof value === "string") {
    out[key] = `${prev} ${value}`;
  } else if (key === "required") {
    out[key] = [...new Set([...stringArray(prev), ...stringArray(value)])];
  } else if (key === "enum" && Array.isArray(prev) && Array.isArray(value)) {
    out[key] = prev.filter((x) => value.some((y) => deepEqual(x, y)));
  } else if (key === "additionalProperties") {
    // Closed wins: the merged object lists every property either part allowed.
    out[key] = prev === false || value === false ? false : prev;
  } else {
    warn(ctx, path, `allOf parts disagree on "${key}"; kept the first`);
  }
}

/** Both schemas at once, as one schema. */
export function mergeTwo(a: JsonSchema, b: JsonSchema, path: string, ctx: Context): JsonSchema {
  const out: JsonSchema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (key === "type") {
      const t = mergeTypes(a, b);
      if (t === undefined) warn(ctx, path, `allOf parts have no type in common; kept the first`);
      else out["type"] = t;
    } else if (key === "properties") {
      out["properties"] = mergeProperties(out["properties"], value, ptr(path, "properties"), ctx);
    } else {
      mergeKey(out, key, value, path, ctx);
    }
  }
  return out;
}

/** The node with its `allOf` parts merged into it (nested `allOf`s included). */
export function mergeAllOf(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  const parts = node["allOf"];
  if (!Array.isArray(parts)) return node;
  let out = omit(node, "allOf");
  parts.forEach((part, i) => {
    if (part === true) return;
    if (!isSchemaObject(part)) {
      warn(ctx, ptr(path, "allOf", i), "allOf part is not a schema; ignored");
      return;
    }
    out = mergeTwo(out, mergeAllOf(part, ptr(path, "allOf", i), ctx), path, ctx);
  });
  warn(ctx, path, "allOf merged into one schema");
  return out;
}
