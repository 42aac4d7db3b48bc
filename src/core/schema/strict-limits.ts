/** The size limits of strict mode (see strict-rules.ts), measured on a normalized schema. */
import type { StrictLimits } from "./strict-rules.ts";
import type { JsonSchema } from "./types.ts";
import { isSchemaObject, typeList } from "./util.ts";

interface Tally {
  depth: number;
  properties: number;
  enumValues: number;
}

function children(node: JsonSchema): unknown[] {
  const out: unknown[] = [];
  if (isSchemaObject(node["properties"])) out.push(...Object.values(node["properties"]));
  if ("items" in node) out.push(node["items"]);
  if (Array.isArray(node["anyOf"])) out.push(...node["anyOf"]);
  return out;
}

function tally(node: unknown, level: number, t: Tally): void {
  if (!isSchemaObject(node)) return;
  const isObject = typeList(node).includes("object");
  const here = isObject ? level + 1 : level;
  t.depth = Math.max(t.depth, here);
  if (isSchemaObject(node["properties"])) t.properties += Object.keys(node["properties"]).length;
  if (Array.isArray(node["enum"])) t.enumValues += node["enum"].length;
  for (const child of children(node)) tally(child, here, t);
}

/** What exceeds the limits, in words; empty when the schema fits. */
export function checkStrictLimits(schema: JsonSchema, limits: StrictLimits): string[] {
  const t: Tally = { depth: 0, properties: 0, enumValues: 0 };
  tally(schema, 0, t);
  const problems: string[] = [];
  if (t.depth > limits.maxDepth) problems.push(`${t.depth} levels of object nesting exceed the limit of ${limits.maxDepth}`);
  if (t.properties > limits.maxProperties) problems.push(`${t.properties} properties exceed the limit of ${limits.maxProperties}`);
  if (t.enumValues > limits.maxEnumValues) problems.push(`${t.enumValues} enum values exceed the limit of ${limits.maxEnumValues}`);
  return problems;
}
