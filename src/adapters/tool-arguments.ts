import { jsonrepair } from "jsonrepair";
import { isJsonObject, type JsonObject } from "../core/json-object.ts";

export interface ParsedArguments {
  arguments: JsonObject;
  /** Set when the text was not a JSON object, even after repair. */
  error?: string;
  /** True when jsonrepair had to fix the text. */
  repaired?: boolean;
}

/**
 * jsonrepair's text for broken argument text, if it has one. It keeps the valid text it starts
 * from, leading whitespace included, so a stream that already sent that start can go on.
 */
export function repairedArgumentText(raw: string): string | undefined {
  try {
    return /^\s*/.exec(raw)![0] + jsonrepair(raw.trim());
  } catch {
    return undefined;
  }
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
    const object: unknown = JSON.parse(text);
    if (isJsonObject(object)) return { arguments: object };
    return { arguments: {}, error: "tool arguments must be a JSON object" };
  } catch {
    // fall through to repair
  }
  try {
    const object: unknown = JSON.parse(jsonrepair(text));
    if (isJsonObject(object)) return { arguments: object, repaired: true };
  } catch {
    // unrepairable
  }
  return { arguments: {}, error: "tool arguments are not valid JSON" };
}
