/** Small pieces every door's conversion to the neutral request uses. */
import type { ImageBlock, ReasoningEffort } from "../../core/index.ts";

/** `data:image/png;base64,...` becomes inline bytes; any other URL stays a URL. */
export function imageFromUrl(url: string): ImageBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match) return { type: "image", source: { kind: "base64", mediaType: match[1]!, data: match[2]! } };
  return { type: "image", source: { kind: "url", url } };
}

/** Drops undefined and null values, so the neutral request holds only what the client set. */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as T;
}

/** The reasoning efforts the doors accept (OpenAI's, and Anthropic's `output_config.effort`). */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const satisfies readonly ReasoningEffort[];
