/** Small pieces every door's conversion to the neutral request uses. */
import type { ImageBlock, ReasoningEffort } from "../../core/index.ts";

/** `data:image/png;base64,...` becomes inline bytes; any other URL stays a URL. */
export function imageFromUrl(url: string): ImageBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { type: "image", source: { kind: "base64", mediaType: match[1]!, data: match[2]! } };
  return { type: "image", source: { kind: "url", url } };
}

/** Whether the client set a field: null, as JSON clients send for "not set", is not set. */
export const isSet = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null;

/** Drops undefined and null values, so the neutral request holds only what the client set (keys in their order). */
export function defined<T extends object>(value: T): T {
  // Assigned one by one: fromEntries(entries().filter()) built three arrays per request.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (isSet(v)) out[key] = v;
  }
  return out as T;
}

/** The reasoning efforts the doors accept (OpenAI's, and Anthropic's `output_config.effort`). */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const satisfies readonly ReasoningEffort[];
