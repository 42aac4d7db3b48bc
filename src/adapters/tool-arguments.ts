import { jsonrepair } from "jsonrepair";

export interface ParsedArguments {
  arguments: { [key: string]: unknown };
  /** Set when the text was not a JSON object, even after repair. */
  error?: string;
  /** True when jsonrepair had to fix the text. */
  repaired?: boolean;
}

function asObject(value: unknown): { [key: string]: unknown } | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as { [key: string]: unknown })
    : undefined;
}

/**
 * Parses a model's tool-call argument text. Empty text and `null` mean "no arguments" (models
 * send both for argument-less tools). Broken JSON is repaired with jsonrepair; what still is not
 * an object is reported, so the caller can hand the model its own text back as an error.
 */
export function parseToolArguments(raw: string): ParsedArguments {
  const text = raw.trim();
  if (text === "" || text === "null") return { arguments: {} };
  try {
    const object = asObject(JSON.parse(text));
    if (object) return { arguments: object };
    return { arguments: {}, error: "tool arguments must be a JSON object" };
  } catch {
    // fall through to repair
  }
  try {
    const object = asObject(JSON.parse(jsonrepair(text)));
    if (object) return { arguments: object, repaired: true };
  } catch {
    // unrepairable
  }
  return { arguments: {}, error: "tool arguments are not valid JSON" };
}
