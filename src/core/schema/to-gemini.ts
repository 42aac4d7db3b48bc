/**
 * Gemini function declarations (`parameters`): the OpenAPI 3.0 subset of gemini-rules.ts.
 * References are inlined (a recursive one becomes a described placeholder), type arrays and
 * null alternatives become `nullable: true`, other unions become `anyOf`, `const` a one-value
 * enum, enums strings; whatever Gemini cannot express is moved into the description.
 *
 * An object without properties is sent as `{ type: "object" }` (Gemini refuses an empty
 * `properties` map: "should be non-empty for OBJECT type"); for the root, the adapter may
 * equally leave `parameters` out.
 */
import { mergeAllOf, mergeTwo } from "./all-of.ts";
import { derefSchema } from "./deref.ts";
import { note, withNotes } from "./describe.ts";
import { upgradeDraft } from "./draft.ts";
import { geminiEnum, geminiFormat, geminiKeywords, GEMINI_TYPES } from "./gemini-rules.ts";
import { foreignKeywords, inferType, splitByType, tupleElement } from "./keywords.ts";
import { ensureObjectRoot } from "./root.ts";
import { newContext, warn, type Context, type JsonSchema, type NormalizedSchema } from "./types.ts";
import { isSchemaObject, omit, ptr, schemaRecord, stringArray, typeList } from "./util.ts";

/** Annotations that may sit next to `anyOf` (they describe the value, whatever its branch). */
const ANNOTATIONS = ["description", "title", "default", "example"];

function pick(node: JsonSchema, keys: string[]): JsonSchema {
  return Object.fromEntries(Object.entries(node).filter(([k]) => keys.includes(k)));
}

/** Gemini has no "any value" type: a union of the scalar types and an open object. */
function anyValue(base: JsonSchema, nullable = false): JsonSchema {
  const branches = ["string", "number", "boolean", "object"].map((type) => (nullable ? { type, nullable } : { type }));
  return withNotes({ ...pick(base, ANNOTATIONS), anyOf: branches }, ["any JSON value"]);
}

/** Removes every way of saying "or null"; reports whether one was there. */
function extractNull(node: JsonSchema): { node: JsonSchema; nullable: boolean } {
  let nullable = node["nullable"] === true;
  let out = omit(node, "nullable");
  const types = typeList(out);
  if (types.includes("null")) {
    nullable = true;
    const rest = types.filter((t) => t !== "null");
    out = rest.length === 0 ? omit(out, "type") : { ...out, type: rest.length === 1 ? rest[0] : rest };
  }
  const anyOf = out["anyOf"];
  if (Array.isArray(anyOf)) {
    const isNull = (b: unknown): boolean => isSchemaObject(b) && (b["type"] === "null" || ("const" in b && b["const"] === null));
    if (anyOf.some(isNull)) {
      nullable = true;
      out = { ...out, anyOf: anyOf.filter((b) => !isNull(b)) };
    }
  }
  const values = out["enum"];
  if (Array.isArray(values) && values.includes(null)) {
    nullable = true;
    const rest = values.filter((v) => v !== null);
    out = rest.length > 0 ? { ...out, enum: rest } : omit(out, "enum");
  }
  return { node: out, nullable };
}

function normalizeCombinators(node: JsonSchema, path: string, ctx: Context): JsonSchema {
  let out = mergeAllOf(node, path, ctx);
  if (Array.isArray(out["oneOf"])) {
    // "Exactly one" cannot be said; "at least one" is what the model needs to know anyway.
    warn(ctx, ptr(path, "oneOf"), "oneOf turned into anyOf");
    const anyOf = Array.isArray(out["anyOf"]) ? out["anyOf"] : [];
    out = { ...omit(out, "oneOf"), anyOf: [...anyOf, ...(out["oneOf"] as unknown[])] };
  }
  if ("const" in out) {
    out = { ...omit(out, "const"), enum: [out["const"]] };
  }
  return out;
}

function convertProperties(node: JsonSchema, path: string, ctx: Context): { node: JsonSchema; notes: string[] } {
  const notes: string[] = [];
  const properties: JsonSchema = {};
  for (const [name, child] of Object.entries(schemaRecord(node["properties"]))) {
    if (child === false) {
      warn(ctx, ptr(path, "properties", name), "property that must be absent dropped");
      notes.push(`${name} must not be given`);
    } else {
      properties[name] = convert(child, ptr(path, "properties", name), ctx);
    }
  }
  const names = Object.keys(properties);
  const required = stringArray(node["required"]);
  const kept = required.filter((r) => names.includes(r));
  const ghosts = required.filter((r) => !names.includes(r));
  if (ghosts.length > 0) warn(ctx, ptr(path, "required"), `entries without a property dropped: ${ghosts.join(", ")}`);
  const out = omit(node, "properties", "required");
  if (names.length > 0) out["properties"] = properties;
  if (kept.length > 0) out["required"] = kept;
  return { node: out, notes };
}

function convertItems(node: JsonSchema, path: string, ctx: Context): { node: JsonSchema; notes: string[] } {
  const tuple = node["prefixItems"];
  const items = node["items"];
  if (!Array.isArray(tuple)) {
    // Gemini refuses an array without `items`; missing items means "anything".
    return { node: { ...node, items: convert(items ?? true, ptr(path, "items"), ctx) }, notes: [] };
  }
  // A tuple becomes a list of its element types; the positions survive as a note.
  warn(ctx, ptr(path, "prefixItems"), "tuple turned into a list of its element types");
  const element = tupleElement(tuple, items);
  const out = { ...omit(node, "prefixItems"), items: convert(element, ptr(path, "items"), ctx) };
  return { node: out, notes: [note("tuple", tuple)] };
}

function convertTyped(node: JsonSchema, type: string, path: string, ctx: Context): JsonSchema {
  const foreign = foreignKeywords(node, type);
  if (foreign.length > 0) warn(ctx, path, `keywords for another type dropped: ${foreign.join(", ")}`);
  let out: JsonSchema = { ...omit(node, ...foreign), type };
  const notes: string[] = [];
  for (const step of [
    (n: JsonSchema) => geminiEnum(n, type, path, ctx),
    (n: JsonSchema) => geminiFormat(n, typeList(n)[0] ?? type, path, ctx),
    (n: JsonSchema) => (type === "object" ? convertProperties(n, path, ctx) : { node: n, notes: [] }),
    (n: JsonSchema) => (type === "array" ? convertItems(n, path, ctx) : { node: n, notes: [] }),
    (n: JsonSchema) => geminiKeywords(n, path, ctx),
  ]) {
    const r = step(out);
    out = r.node;
    notes.push(...r.notes);
  }
  return withNotes(out, notes);
}

function convertUnion(node: JsonSchema, branches: unknown[], nullable: boolean, path: string, ctx: Context): JsonSchema {
  const rest = omit(node, "anyOf", "type");
  const { node: kept, notes } = geminiKeywords(pick(rest, ANNOTATIONS), path, ctx);
  const dropped = Object.keys(rest).filter((k) => !ANNOTATIONS.includes(k));
  if (dropped.length > 0) {
    warn(ctx, path, `keywords next to anyOf moved to description: ${dropped.join(", ")}`);
    notes.push(...dropped.map((k) => note(k, rest[k])));
  }
  const anyOf = branches.map((b, i) => convert(b, ptr(path, "anyOf", i), ctx));
  return withNullable(withNotes({ ...kept, anyOf }, notes), nullable);
}

function convertNode(input: JsonSchema, path: string, ctx: Context): JsonSchema {
  const { node: base, nullable } = extractNull(normalizeCombinators(input, path, ctx));
  let node = base;
  const types = typeList(node);
  if (types.length > 1) {
    warn(ctx, ptr(path, "type"), `type ${JSON.stringify(types)} turned into anyOf`);
    node = { ...pick(node, ANNOTATIONS), anyOf: splitByType(node, types) };
  }
  const anyOf = node["anyOf"];
  const only = Array.isArray(anyOf) && anyOf.length === 1 ? anyOf[0] : undefined;
  // One alternative left (typically "T or null"): it is the schema, converted afresh.
  if (isSchemaObject(only)) return withNullable(convertNode(mergeTwo(omit(node, "anyOf"), only, path, ctx), path, ctx), nullable);
  if (Array.isArray(anyOf) && anyOf.length > 0) return convertUnion(node, anyOf, nullable, path, ctx);
  node = omit(node, "anyOf");
  // A mixed enum has no single type; Gemini sends every value as a string anyway.
  const type = inferType(node) ?? (Array.isArray(node["enum"]) ? "string" : undefined);
  if (type === undefined || !GEMINI_TYPES.has(type)) {
    if (Object.keys(omit(node, ...ANNOTATIONS)).length > 0) warn(ctx, path, "schema without a usable type replaced by any JSON value");
    return anyValue(node, nullable);
  }
  return withNullable(convertTyped(node, type, path, ctx), nullable);
}

/** Marks a converted schema nullable; a union carries the mark on each branch. */
function withNullable(schema: JsonSchema, nullable: boolean): JsonSchema {
  if (!nullable) return schema;
  const anyOf = schema["anyOf"];
  if (!Array.isArray(anyOf)) return { ...schema, nullable: true };
  return { ...schema, anyOf: anyOf.map((b) => (isSchemaObject(b) ? { ...b, nullable: true } : b)) };
}

function convert(value: unknown, path: string, ctx: Context): JsonSchema {
  if (isSchemaObject(value)) return convertNode(value, path, ctx);
  if (value !== true) warn(ctx, path, `${JSON.stringify(value)} is not a schema; replaced by any JSON value`);
  return anyValue({});
}

export function toGemini(schema: JsonSchema | undefined): NormalizedSchema {
  const ctx = newContext();
  const inlined = isSchemaObject(schema) ? upgradeDraft(derefSchema(schema, { cycles: "placeholder" }, ctx), ctx) : undefined;
  const root = convert(ensureObjectRoot(inlined, ctx), "#", ctx);
  return { schema: omit(root, "nullable"), warnings: ctx.warnings };
}
