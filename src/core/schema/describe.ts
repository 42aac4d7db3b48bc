/**
 * Moving constraints into descriptions. A target that cannot express a keyword still shows it
 * to the model as text, so the model keeps producing valid arguments; the tool itself still
 * validates against the original schema.
 */
import type { JsonSchema } from "./types.ts";

const MAX_VALUE_CHARS = 200;

function render(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARS ? text.slice(0, MAX_VALUE_CHARS - 1) + "…" : text;
}

/** `key: value` as shown in a description, e.g. `format: email`. */
export function note(key: string, value: unknown): string {
  return `${key}: ${render(value)}`;
}

/** A copy of the node with `(a; b)` appended to its description. */
export function withNotes(node: JsonSchema, notes: string[]): JsonSchema {
  if (notes.length === 0) return node;
  const text = `(${notes.join("; ")})`;
  const current = node["description"];
  const description = typeof current === "string" && current.trim() !== "" ? `${current.trimEnd()} ${text}` : text;
  return { ...node, description };
}
