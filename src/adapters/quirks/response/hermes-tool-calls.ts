/**
 * Tool calls a model printed as text inside `<tool_call>` tags: what vLLM, llama.cpp, Ollama or
 * LM Studio leave in `content` when their tool parser is off or does not know the model. Two
 * bodies are understood: the Hermes/Qwen JSON,
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`, and GLM-4.5/4.7's
 * key/value tags, `<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>`.
 * The bodies are read here; finding the tags while streaming is text-tool-calls.ts's job.
 */
import { parseToolArguments } from "../../tool-arguments.ts";

export const HERMES_OPEN = "<tool_call>";
export const HERMES_CLOSE = "</tool_call>";

export interface TextToolCall {
  name: string;
  /** JSON text of the arguments. */
  arguments: string;
}

export interface TextToolCallOutput {
  text: string;
  calls: TextToolCall[];
}

/** Whether a tool's argument is declared a string (then GLM's value text is taken as is). */
export type StringArgument = (tool: string, argument: string) => boolean;

const GLM_NAME = /^[\w.:/-]+$/;
// Keys hold no "<" (so a key never runs on past its own </arg_key>); values may.
const GLM_ARGUMENT = /<arg_key>([^<]*)<\/arg_key>\s*<arg_value>([\s\S]*?)<\/arg_value>\s*/y;

/** A GLM value: its text for string arguments, else the JSON it spells, else its text. */
function glmValue(text: string, isString: boolean): unknown {
  if (isString) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** GLM's `name<arg_key>k</arg_key><arg_value>v</arg_value>…`, as vLLM's glm4_moe parser reads it. */
function parseGlmCall(inner: string, stringArgument: StringArgument): TextToolCall | undefined {
  const start = inner.indexOf("<arg_key>");
  const name = (start === -1 ? inner : inner.slice(0, start)).trim();
  if (!GLM_NAME.test(name)) return undefined;
  // No prototype: a key such as "__proto__" is an ordinary argument.
  const args: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const pairs = start === -1 ? "" : inner.slice(start);
  GLM_ARGUMENT.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = GLM_ARGUMENT.exec(pairs)) !== null) {
    const key = match[1]!.trim();
    args[key] = glmValue(match[2]!.trim(), stringArgument(name, key));
    if (GLM_ARGUMENT.lastIndex === pairs.length) break;
  }
  // Anything besides name and pairs: not a call after all (the text stays text).
  if (pairs !== "" && GLM_ARGUMENT.lastIndex !== pairs.length) return undefined;
  return { name, arguments: JSON.stringify(args) };
}

/** The call inside one tag, or undefined when it is not one (then the text stays text). */
export function parseHermesCall(inner: string, stringArgument: StringArgument = () => false): TextToolCall | undefined {
  if (inner.trimStart().startsWith("{")) {
    // jsonrepair inside: the hermes parsers are known to drop the final "}" (vllm#22885).
    const parsed = parseToolArguments(inner);
    const name = parsed.arguments["name"];
    if (parsed.error !== undefined || typeof name !== "string" || name === "") return undefined;
    const args = parsed.arguments["arguments"] ?? parsed.arguments["parameters"] ?? {};
    return { name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
  }
  return parseGlmCall(inner, stringArgument);
}
