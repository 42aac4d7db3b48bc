/**
 * OpenAI structured outputs (`strict: true`) for tool parameters: every object closed
 * (`additionalProperties: false`) with all properties required, optional ones nullable,
 * only the keywords of strict-rules.ts, `oneOf` as `anyOf`, `allOf` merged, references inlined.
 *
 * Some schemas cannot be strict without changing what they accept (free-form objects, maps,
 * untyped values, recursion, size limits). They still come out in the strict dialect, but with
 * `strict: false`: the caller should then send the `openai` normalization non-strict.
 *
 * Optional properties come back as `null` when the model leaves them out; restoreArguments()
 * turns those back into absent properties before the tool sees them.
 */
import { mergeAllOf, mergeTwo } from "./all-of.ts";
import { derefSchema } from "./deref.ts";
import { note, withNotes } from "./describe.ts";
import { upgradeDraft } from "./draft.ts";
import { foreignKeywords, inferType, splitByType, tupleElement } from "./keywords.ts";
import { ensureObjectRoot } from "./root.ts";
import { checkStrictLimits } from "./strict-limits.ts";
import { acceptsNull, makeNullable } from "./strict-nullable.ts";
import { DEFAULT_STRICT_LIMITS, STRICT_BY_TYPE, STRICT_COMMON, STRICT_FORMATS, STRICT_META, type StrictLimits } from "./strict-rules.ts";
import { newContext, warn, type Context, type JsonSchema, type NormalizedSchema } from "./types.ts";
import { isSchemaObject, jsonTypeOf, omit, ptr, schemaRecord, stringArray, typeList } from "./util.ts";

const ANNOTATIONS = ["description", "title"];

function pick(node: JsonSchema, keys: string[]): JsonSchema {
  return Object.fromEntries(Object.entries(node).filter(([k]) => keys.includes(k)));
}

/** Strict mode has no "any value": the scalars are the closest it gets. */
function anyScalar(base: JsonSchema, path: string, ctx: Context): JsonSchema {
  warn(ctx, path, "untyped value cannot be strict; limited to string, number or boolean");
  ctx.lossy = true;
  const anyOf = ["string", "number", "boolean"].map((type) => ({ type }));
  return withNotes({ ...pick(base, ANNOTATIONS), anyOf }, ["any JSON value"]);
}

/** Drops what strict mode refuses; meaningful keywords become notes. */
function filterKeywords(node: JsonSchema, type: string, path: string, ctx: Context): { node: JsonSchema; notes: string[] } {
  const allowed = [...STRICT_COMMON, ...(STRICT_BY_TYPE[type] ?? [])];
  const foreign = foreignKeywords(node, type);
  if (foreign.length > 0) warn(ctx, path, `keywords for another type dropped: ${foreign.join(", ")}`);
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(omit(node, ...foreign))) {
    const badFormat = key === "format" && !(typeof value === "string" && STRICT_FORMATS.includes(value));
    if (key === "additionalProperties") {
      // Closing the object is strictObject's job; a value schema is still worth telling.
      if (isSchemaObject(value) && Object.keys(value).length > 0) notes.push(note("additional properties", value));
    } else if (allowed.includes(key) && !badFormat) out[key] = value;
    else if (STRICT_META.has(key)) continue;
    else {
      const what = key === "format" ? `format ${JSON.stringify(value)}` : key;
      warn(ctx, ptr(path, key), `${what} is not supported in strict mode; moved to description`);
      notes.push(note(key, value));
    }
  }
  return { node: out, notes };
}

function strictObject(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  const extra = node["additionalProperties"];
  const open = (extra !== undefined && extra !== false) || "patternProperties" in node;
  const freeForm = !isSchemaObject(node["properties"]);
  if (open || freeForm) {
    warn(ctx, path, "object with arbitrary keys cannot be strict; closed to its declared properties");
    ctx.lossy = true;
  }
  const required = stringArray(node["required"]);
  const declared = schemaRecord(node["properties"]);
  const ghosts = required.filter((r) => !(r in declared));
  if (ghosts.length > 0) warn(ctx, ptr(path, "required"), `entries without a property dropped: ${ghosts.join(", ")}`);
  const properties: JsonSchema = {};
  const optional: string[] = [];
  const notes: string[] = [];
  for (const [name, child] of Object.entries(declared)) {
    if (child === false) {
      warn(ctx, ptr(path, "properties", name), "property that must be absent dropped");
      notes.push(`${name} must not be given`);
      continue;
    }
    const converted = strict(child, ptr(path, "properties", name), ctx);
    const isOptional = !required.includes(name) && !acceptsNull(converted);
    if (isOptional) optional.push(name);
    properties[name] = isOptional ? makeNullable(converted) : converted;
  }
  if (optional.length > 0) warn(ctx, path, `optional properties made required and nullable: ${optional.join(", ")}`);
  const out = { ...omit(node, "patternProperties"), properties, required: Object.keys(properties), additionalProperties: false };
  return withNotes(out, notes);
}

function strictArray(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  const tuple = node["prefixItems"];
  const items = node["items"];
  if (!Array.isArray(tuple)) return { ...node, items: strict(items ?? true, ptr(path, "items"), ctx) };
  // A tuple becomes a list of its element types (the positions are in the description).
  const element = tupleElement(tuple, items);
  return { ...omit(node, "prefixItems"), items: strict(element, ptr(path, "items"), ctx) };
}

function strictTyped(node: JsonSchema, type: string, path: string, ctx: Context): JsonSchema {
  const nullable = typeList(node).includes("null");
  const { node: kept, notes } = filterKeywords(node, type, path, ctx);
  let out: JsonSchema = { ...kept, type: nullable ? [type, "null"] : type };
  // The object step needs to see whether the original was open, which filtering hid.
  if (type === "object") out = strictObject({ ...out, ...pick(node, ["additionalProperties", "patternProperties"]) }, path, ctx);
  if (type === "array") out = strictArray({ ...out, ...pick(node, ["prefixItems", "items"]) }, path, ctx);
  return withNotes(out, notes);
}

function strictUnion(node: JsonSchema, branches: unknown[], path: string, ctx: Context): JsonSchema {
  const rest = omit(node, "anyOf", ...ANNOTATIONS);
  const moved = Object.keys(rest).filter((k) => !STRICT_META.has(k) && k !== "type");
  if (moved.length > 0) warn(ctx, path, `keywords next to anyOf moved to description: ${moved.join(", ")}`);
  const notes = moved.map((k) => note(k, rest[k]));
  const anyOf = branches.map((b, i) => strict(b, ptr(path, "anyOf", i), ctx));
  if (typeList(node).includes("null") && !anyOf.some(acceptsNull)) anyOf.push({ type: "null" });
  return withNotes({ ...pick(node, ANNOTATIONS), anyOf }, notes);
}

/** `oneOf` → `anyOf`, `allOf` merged, several types → one branch per type. */
function normalizeCombinators(input: JsonSchema, path: string, ctx: Context): JsonSchema {
  let node = mergeAllOf(input, path, ctx);
  if (Array.isArray(node["oneOf"])) {
    warn(ctx, ptr(path, "oneOf"), "oneOf turned into anyOf ('oneOf' is not permitted in strict mode)");
    const anyOf = Array.isArray(node["anyOf"]) ? node["anyOf"] : [];
    node = { ...omit(node, "oneOf"), anyOf: [...anyOf, ...(node["oneOf"] as unknown[])] };
  }
  const types = typeList(node).filter((t) => t !== "null");
  if (types.length > 1) {
    warn(ctx, ptr(path, "type"), `type ${JSON.stringify(node["type"])} turned into anyOf`);
    const branches = splitByType(node, types);
    if (typeList(node).includes("null")) branches.push({ type: "null" });
    node = { ...pick(node, ANNOTATIONS), anyOf: branches };
  }
  return node;
}

/** An enum or const without `type` gets one; values of several types split into branches. */
function typeFromValues(node: JsonSchema): JsonSchema {
  if (typeList(node).length > 0) return node;
  const values = "const" in node ? [node["const"]] : Array.isArray(node["enum"]) ? node["enum"] : undefined;
  if (values === undefined) return node;
  const type = inferType({ enum: values });
  if (type !== undefined) return { ...node, type };
  const types = [...new Set(values.map(jsonTypeOf))];
  return { ...pick(node, ANNOTATIONS), anyOf: splitByType({ enum: values }, types) };
}

function strictNode(input: JsonSchema, path: string, ctx: Context): JsonSchema {
  let node = typeFromValues(normalizeCombinators(input, path, ctx));
  const anyOf = node["anyOf"];
  if (Array.isArray(anyOf) && anyOf.length > 0) {
    const only = anyOf[0];
    if (anyOf.length === 1 && isSchemaObject(only)) return strictNode(mergeTwo(omit(node, "anyOf"), only, path, ctx), path, ctx);
    return strictUnion(node, anyOf, path, ctx);
  }
  node = omit(node, "anyOf");
  const type = inferType(node);
  if (type === undefined || type === "null") return type === "null" ? { ...pick(node, ANNOTATIONS), type: "null" } : anyScalar(node, path, ctx);
  return strictTyped(node, type, path, ctx);
}

function strict(value: unknown, path: string, ctx: Context): JsonSchema {
  if (isSchemaObject(value)) return strictNode(value, path, ctx);
  if (value !== true) warn(ctx, path, `${JSON.stringify(value)} is not a schema`);
  return anyScalar({}, path, ctx);
}

export interface StrictOptions {
  limits?: Partial<StrictLimits>;
}

export function toOpenAIStrict(schema: JsonSchema | undefined, options: StrictOptions = {}): NormalizedSchema {
  const ctx = newContext();
  const inlined = isSchemaObject(schema) ? upgradeDraft(derefSchema(schema, { cycles: "placeholder" }, ctx), ctx) : undefined;
  const root = strict(ensureObjectRoot(inlined, ctx), "#", ctx);
  const problems = checkStrictLimits(root, { ...DEFAULT_STRICT_LIMITS, ...options.limits });
  for (const p of problems) warn(ctx, "#", `${p}; the schema cannot be strict`);
  return { schema: root, warnings: ctx.warnings, strict: !ctx.lossy && problems.length === 0 };
}
