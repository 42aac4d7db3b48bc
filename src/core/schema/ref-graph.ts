/**
 * Which local references are recursive (their target reaches them again). Keeping exactly
 * those as `$ref` gives the smallest faithful schema, and normalizing it again changes nothing.
 */
import type { JsonSchema } from "./types.ts";
import { isSchemaObject } from "./util.ts";
import { mapSubschemas } from "./walk.ts";

/** Refs used by the node itself (definition containers are not part of it). */
function refsIn(node: unknown, out: Set<string>): Set<string> {
  if (!isSchemaObject(node)) return out;
  const ref = node["$ref"];
  if (typeof ref === "string") out.add(ref);
  mapSubschemas(node, "", (child) => refsIn(child, out), ["$defs", "definitions"]);
  return out;
}

/** The references of `root` that lead back to themselves. */
export function recursiveRefs(root: JsonSchema, resolve: (ref: string) => unknown): Set<string> {
  const edges = new Map<string, Set<string>>();
  const pending = [...refsIn(root, new Set())];
  for (let ref = pending.pop(); ref !== undefined; ref = pending.pop()) {
    if (edges.has(ref)) continue;
    const next = refsIn(resolve(ref), new Set());
    edges.set(ref, next);
    pending.push(...next);
  }
  const cyclic = new Set<string>();
  for (const start of edges.keys()) {
    const seen = new Set<string>();
    const stack = [...(edges.get(start) ?? [])];
    for (let ref = stack.pop(); ref !== undefined; ref = stack.pop()) {
      if (ref === start) {
        cyclic.add(start);
        break;
      }
      if (seen.has(ref)) continue;
      seen.add(ref);
      stack.push(...(edges.get(ref) ?? []));
    }
  }
  return cyclic;
}
