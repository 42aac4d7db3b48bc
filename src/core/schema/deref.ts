/**
 * Inlines local `$ref`s (`#/$defs/x`, `#/definitions/x`, any `#/…` pointer, `#`). Several
 * providers (Gemini, most OpenAI-compatible servers) resolve no references at all, and inlined
 * schemas are what the other normalizers can rewrite.
 *
 * A reference back into itself cannot be inlined. With `cycles: "keep"` every recursive
 * reference stays a `$ref` and the root keeps its definitions (OpenAI and Anthropic accept
 * recursion); with `"placeholder"` the recursion is unrolled once and then replaced by a
 * permissive node of the same type, described in words (Gemini, strict mode).
 */
import { note, withNotes } from "./describe.ts";
import { warn, type Context, type JsonSchema } from "./types.ts";
import { recursiveRefs } from "./ref-graph.ts";
import { isSchemaObject, omit, typeList } from "./util.ts";
import { mapSubschemas } from "./walk.ts";

export interface DerefOptions {
  cycles: "keep" | "placeholder";
  /** Bound on inlined references, against exponential blow-up of shared definitions. */
  maxExpansions?: number;
}

const DEFINITION_KEYS = ["$defs", "definitions"];

interface State {
  root: JsonSchema;
  options: DerefOptions;
  ctx: Context;
  expansions: number;
  /** Set when a `$ref` was left in place, so the definitions must stay. */
  keptRef: boolean;
  /** Recursive references, left in place with `cycles: "keep"`. */
  recursive: Set<string>;
}

function decodeSegment(segment: string): string {
  let s = segment;
  try {
    s = decodeURIComponent(s);
  } catch {
    // not percent-encoded
  }
  return s.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Resolves a local JSON pointer against the root; undefined when it does not exist. */
export function resolvePointer(root: JsonSchema, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeSegment(raw);
    if (Array.isArray(node) && /^\d+$/.test(key)) node = node[Number(key)];
    else if (isSchemaObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function refName(ref: string): string {
  return ref === "#" ? "the whole schema" : ref.slice(ref.lastIndexOf("/") + 1);
}

/** Stand-in for a reference that is not inlined: same type, permissive, explained in words. */
function placeholder(target: unknown, ref: string, siblings: JsonSchema, why: string): JsonSchema {
  const type = isSchemaObject(target) ? typeList(target).find((t) => t !== "null") : undefined;
  const base: JsonSchema = { ...siblings, type: type ?? "object" };
  return withNotes(base, [note(why, refName(ref))]);
}

function expandRef(node: JsonSchema, ref: string, path: string, stack: string[], st: State): JsonSchema {
  const siblings = visitNode(omit(node, "$ref"), path, stack, st);
  const target = resolvePointer(st.root, ref);
  if (target === undefined) {
    warn(st.ctx, path, `$ref "${ref}" cannot be resolved (only local references are); replaced by an unconstrained schema`);
    return withNotes(siblings, [note("reference", ref)]);
  }
  // The root itself is always inlined once: providers want an object schema there, not a `$ref`.
  const cyclic = stack.includes(ref) || (st.options.cycles === "keep" && st.recursive.has(ref) && path !== "#");
  const budget = st.options.maxExpansions ?? 500;
  if (cyclic || st.expansions >= budget) {
    const why = cyclic ? "recursive reference" : "too many references to inline";
    if (st.options.cycles === "keep") {
      st.keptRef = true;
      return { ...siblings, $ref: ref };
    }
    warn(st.ctx, path, `${why} "${ref}" replaced by a placeholder`);
    st.ctx.lossy = true;
    return placeholder(target, ref, siblings, cyclic ? "recursive, same shape as" : "same shape as");
  }
  st.expansions++;
  const inlined = visit(target, path, [...stack, ref], st);
  // Siblings of `$ref` refine the target (2020-12); the common ones (description, default)
  // simply override it.
  return isSchemaObject(inlined) ? { ...inlined, ...siblings } : siblings;
}

function visitNode(node: JsonSchema, path: string, stack: string[], st: State): JsonSchema {
  const ref = node["$ref"];
  if (typeof ref === "string") return expandRef(node, ref, path, stack, st);
  const next = (child: unknown, p: string): unknown => visit(child, p, stack, st);
  return omit(mapSubschemas(node, path, next, DEFINITION_KEYS), ...DEFINITION_KEYS);
}

function visit(node: unknown, path: string, stack: string[], st: State): unknown {
  return isSchemaObject(node) ? visitNode(node, path, stack, st) : node;
}

/** A copy of the schema with local references inlined; the input is not modified. */
export function derefSchema(schema: JsonSchema, options: DerefOptions, ctx: Context): JsonSchema {
  const recursive = options.cycles === "keep" ? recursiveRefs(schema, (ref) => resolvePointer(schema, ref)) : new Set<string>();
  const st: State = { root: schema, options, ctx, expansions: 0, keptRef: false, recursive };
  const out = visitNode(schema, "#", [], st);
  if (!st.keptRef) return out;
  // Kept references point into the original definitions, so those travel along unchanged.
  const defs: JsonSchema = {};
  for (const key of DEFINITION_KEYS) if (key in schema) defs[key] = schema[key];
  return { ...out, ...defs };
}
