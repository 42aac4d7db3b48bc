/**
 * Mistral's tool calls printed as text: everything after a `[TOOL_CALLS]` token to the end of
 * the content. Two shapes, by tokenizer version (vLLM's mistral parser reads both):
 *   before v11: `[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]`
 *   v11 and on: `[TOOL_CALLS]get_weather{"city": "Paris"}[TOOL_CALLS]get_time{…}` (also with
 *               `[ARGS]` between name and arguments).
 * There is no closing token: text-tool-calls.ts holds the rest once `[TOOL_CALLS]` is seen, and
 * reads it here when the content ends.
 */
import { parseToolArguments } from "../../tool-arguments.ts";
import type { TextToolCall } from "./hermes-tool-calls.ts";

export const MISTRAL_CALLS = "[TOOL_CALLS]";
const ARGS = "[ARGS]";
const NAME = /^[\w.:/-]+$/;

function jsonArguments(text: string): string | undefined {
  const parsed = parseToolArguments(text);
  return parsed.error === undefined ? JSON.stringify(parsed.arguments) : undefined;
}

/** `[{"name": …, "arguments": …}, …]`, the older shape. */
function parseList(text: string): TextToolCall[] | undefined {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const calls: TextToolCall[] = [];
  for (const item of list) {
    const { name, arguments: args } = (item ?? {}) as { name?: unknown; arguments?: unknown };
    if (typeof name !== "string" || !NAME.test(name)) return undefined;
    calls.push({ name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) });
  }
  return calls;
}

/** `name{…}` or `name[ARGS]{…}`, one segment of the newer shape. */
function parseSegment(segment: string): TextToolCall | undefined {
  const argsAt = segment.indexOf(ARGS);
  const braceAt = segment.indexOf("{");
  const cut = argsAt !== -1 && (braceAt === -1 || argsAt < braceAt) ? argsAt : braceAt;
  const name = (cut === -1 ? segment : segment.slice(0, cut)).trim();
  if (!NAME.test(name)) return undefined;
  if (cut === -1) return { name, arguments: "{}" };
  const rest = segment.slice(cut === argsAt ? cut + ARGS.length : cut).trim();
  const args = rest === "" ? "{}" : jsonArguments(rest);
  return args === undefined ? undefined : { name, arguments: args };
}

/** The calls after the first `[TOOL_CALLS]`, or undefined when they do not read as calls. */
export function parseMistralCalls(afterToken: string): TextToolCall[] | undefined {
  const text = afterToken.trim();
  if (text.startsWith("[")) return parseList(text);
  const calls: TextToolCall[] = [];
  for (const segment of text.split(MISTRAL_CALLS)) {
    const call = parseSegment(segment);
    if (!call) return undefined;
    calls.push(call);
  }
  return calls;
}
