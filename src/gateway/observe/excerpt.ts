/**
 * What the web view and the traces show of content (tool arguments and results, prompts),
 * redacted like the logs: credential-bearing keys replaced (authorization, api keys), every
 * configured secret scrubbed out, and cut to a bounded length.
 */
import type { Message, ToolResultBlock, ToolResultContent } from "../../core/index.ts";
import { REDACTED } from "../../core/log-redact.ts";

/** Keys (lower-case) whose values are credentials wherever they appear, as in the logs. */
const SECRET_KEYS = new Set(["authorization", "proxy-authorization", "x-api-key", "api-key", "apikey", "x-goog-api-key", "password", "secret", "token", "access_token", "refresh_token"]);

export type Scrub = (text: string) => string;

/** JSON of a value with credential keys' values replaced at any depth. */
export function redactedJson(value: unknown): string {
  return JSON.stringify(value, (key, inner: unknown) => (key !== "" && SECRET_KEYS.has(key.toLowerCase()) ? REDACTED : inner)) ?? "";
}

/** Text cut to `max` characters (an ellipsis says how much was left out). */
export function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

/** A value as redacted, scrubbed text of at most `max` characters. */
export function excerpt(value: unknown, scrub: Scrub, max: number): string {
  const text = typeof value === "string" ? value : redactedJson(value);
  // Scrubbed before the cut, so that a secret is never left half-visible at the edge.
  return cut(scrub(text), max);
}

function resultPart(part: ToolResultContent): unknown {
  switch (part.type) {
    case "text":
      return part.text;
    case "image":
      return `[image${part.source.mediaType ? ` ${part.source.mediaType}` : ""}]`;
    case "audio":
      return `[audio ${part.mediaType}]`;
    case "resource":
      return part.text ?? `[resource ${part.uri}]`;
  }
}

/** A tool result's content as text (images and audio named, not included). */
export function resultText(result: ToolResultBlock): string {
  const parts = result.content.map(resultPart);
  return parts.every((p) => typeof p === "string") ? parts.join("\n") : redactedJson(parts);
}

/**
 * Messages in the shape of the GenAI semantic conventions' `gen_ai.input.messages` /
 * `gen_ai.output.messages` (role and parts), for content capture.
 */
export function semconvMessages(messages: readonly Message[]): unknown[] {
  return messages.map((message) => ({
    role: message.role,
    parts: message.content.map((block) => {
      switch (block.type) {
        case "text":
          return { type: "text", content: block.text };
        case "reasoning":
          return { type: "reasoning", content: block.text };
        case "tool_call":
          return { type: "tool_call", id: block.id, name: block.name, arguments: block.arguments };
        case "tool_result":
          return { type: "tool_call_response", id: block.callId, response: resultText(block) };
        default:
          return { type: block.type };
      }
    }),
  }));
}
