/**
 * Tool calls a model printed as text inside `<tool_call>` tags: what vLLM, llama.cpp, Ollama or
 * LM Studio leave in `content` when their tool parser is off or does not know the model. Two
 * bodies are understood: the Hermes/Qwen JSON,
 * `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`, and GLM-4.5/4.7's
 * key/value tags, `<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>`.
 * Streaming-safe: text that might be the start of the tag is held back until the next delta
 * decides; all other text goes out at once.
 */
import { parseToolArguments } from "../../tool-arguments.ts";
import { partialTagLength } from "./partial-tag.ts";

export const HERMES_OPEN = "<tool_call>";
export const HERMES_CLOSE = "</tool_call>";
const OPEN = HERMES_OPEN;
const CLOSE = HERMES_CLOSE;

export interface TextToolCall {
  name: string;
  /** JSON text of the arguments. */
  arguments: string;
}

export interface HermesOutput {
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

/** Calls between an opening and a closing tag, streamed; what is inside is read by `parse`. */
export class TaggedCallParser {
  constructor(
    private readonly open: string,
    private readonly close: string,
    private readonly parse: (inner: string) => TextToolCall | undefined,
  ) {}

  private inCall = false;
  private buffer = "";
  /**
   * Inside a call: its body so far, before `buffer` (which then holds only what could still be
   * the start of the closing tag, plus the newest delta). Searching one growing string again on
   * every delta was quadratic: seconds for a long call streamed in small pieces.
   */
  private body: string[] = [];
  /** Right after a call, whitespace (the newline between calls) is dropped, not shown. */
  private afterCall = false;

  push(chunk: string): HermesOutput {
    this.buffer += chunk;
    const out: HermesOutput = { text: "", calls: [] };
    let progressed = true;
    while (progressed) progressed = this.inCall ? this.closeCall(out) : this.openCall(out);
    return out;
  }

  /**
   * The end of the content: a partial tag is text; an unclosed call still counts if it parses
   * (servers drop the closing tag), unless `takeUnclosed` is false (the answer was cut off).
   */
  end({ takeUnclosed = true }: { takeUnclosed?: boolean } = {}): HermesOutput {
    const held = this.buffer;
    this.buffer = "";
    const out: HermesOutput = { text: "", calls: [] };
    if (!this.inCall) this.emit(out, held);
    else if (takeUnclosed) this.finishCall(out, this.body.join("") + held, "");
    else this.emit(out, this.open + this.body.join("") + held);
    this.body = [];
    this.inCall = false;
    return out;
  }

  /** Emits text up to an opening tag; true when one was found (the loop goes on inside it). */
  private openCall(out: HermesOutput): boolean {
    const open = this.buffer.indexOf(this.open);
    if (open === -1) {
      const keep = partialTagLength(this.buffer, this.open);
      this.emit(out, this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return false;
    }
    this.emit(out, this.buffer.slice(0, open));
    this.buffer = this.buffer.slice(open + this.open.length);
    this.inCall = true;
    return true;
  }

  /** Waits for the closing tag; true when the call is complete. */
  private closeCall(out: HermesOutput): boolean {
    const close = this.buffer.indexOf(this.close);
    if (close === -1) {
      const keep = Math.min(this.buffer.length, this.close.length - 1);
      this.body.push(this.buffer.slice(0, this.buffer.length - keep));
      this.buffer = this.buffer.slice(this.buffer.length - keep);
      return false;
    }
    const inner = this.body.join("") + this.buffer.slice(0, close);
    this.body = [];
    this.finishCall(out, inner, this.close);
    this.buffer = this.buffer.slice(close + this.close.length);
    this.inCall = false;
    return true;
  }

  private finishCall(out: HermesOutput, inner: string, closing: string): void {
    const call = this.parse(inner);
    if (call) {
      out.calls.push(call);
      this.afterCall = true;
    } else {
      this.emit(out, this.open + inner + closing);
    }
  }

  private emit(out: HermesOutput, text: string): void {
    const shown = this.afterCall ? text.trimStart() : text;
    if (shown !== "") this.afterCall = false;
    out.text += shown;
  }
}

/** `<tool_call>…</tool_call>` with a Hermes JSON or a GLM key/value body. */
export class HermesToolCallParser extends TaggedCallParser {
  constructor(stringArgument: StringArgument = () => false) {
    super(OPEN, CLOSE, (inner) => parseHermesCall(inner, stringArgument));
  }
}

/** A whole content string at once (non-streamed responses). */
export function extractHermesToolCalls(content: string, stringArgument?: StringArgument): HermesOutput {
  const parser = new HermesToolCallParser(stringArgument);
  const first = parser.push(content);
  const last = parser.end();
  return { text: first.text + last.text, calls: [...first.calls, ...last.calls] };
}
