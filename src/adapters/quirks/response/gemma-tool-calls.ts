/**
 * Gemma 4's tool calls printed as text, `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>`:
 * what a server without (or with the wrong) tool parser leaves in `content`. The body is not
 * JSON: keys are bare, strings sit between `<|"|>` tokens, numbers, booleans and null are
 * verbatim, and dicts and lists nest. It is transcribed to JSON the way llama.cpp's and
 * mlx-lm's Gemma 4 parsers read it (NousResearch/hermes-agent#38376).
 */
import type { TextToolCall } from "./hermes-tool-calls.ts";

export const GEMMA_OPEN = "<|tool_call>";
export const GEMMA_CLOSE = "<tool_call|>";
const QUOTE = '<|"|>';
const NAME = /^[\w.:/-]+$/;
const SCALAR = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/;

class Transcriber {
  private at = 0;
  constructor(private readonly text: string) {}

  /** The JSON of the value at the cursor; throws when the body is not one. */
  value(): string {
    this.space();
    if (this.text.startsWith(QUOTE, this.at)) return JSON.stringify(this.quoted());
    if (this.text[this.at] === '"') return this.jsonString();
    if (this.text[this.at] === "{") return this.dict();
    if (this.text[this.at] === "[") return this.list();
    return this.scalar();
  }

  finished(): boolean {
    this.space();
    return this.at === this.text.length;
  }

  private dict(): string {
    this.at++; // {
    const members: string[] = [];
    for (this.space(); this.text[this.at] !== "}"; this.space()) {
      if (members.length > 0) this.expect(",");
      const key = this.key();
      this.expect(":");
      members.push(`${JSON.stringify(key)}:${this.value()}`);
    }
    this.at++; // }
    return `{${members.join(",")}}`;
  }

  private list(): string {
    this.at++; // [
    const items: string[] = [];
    for (this.space(); this.text[this.at] !== "]"; this.space()) {
      if (items.length > 0) this.expect(",");
      items.push(this.value());
    }
    this.at++; // ]
    return `[${items.join(",")}]`;
  }

  private key(): string {
    this.space();
    if (this.text.startsWith(QUOTE, this.at)) return this.quoted();
    if (this.text[this.at] === '"') return JSON.parse(this.jsonString()) as string;
    const end = this.text.indexOf(":", this.at);
    const key = end === -1 ? "" : this.text.slice(this.at, end).trim();
    if (key === "" || /[{}[\],]/.test(key)) throw new SyntaxError("not a key");
    this.at = end;
    return key;
  }

  private quoted(): string {
    const start = this.at + QUOTE.length;
    const end = this.text.indexOf(QUOTE, start);
    if (end === -1) throw new SyntaxError("unterminated string");
    this.at = end + QUOTE.length;
    return this.text.slice(start, end);
  }

  private jsonString(): string {
    const match = /"(?:[^"\\]|\\.)*"/y;
    match.lastIndex = this.at;
    const found = match.exec(this.text);
    if (!found) throw new SyntaxError("unterminated string");
    this.at = match.lastIndex;
    return found[0];
  }

  /** A number, boolean or null as is; any other bare word is taken as a string. */
  private scalar(): string {
    const match = /[^,}\]]*/y;
    match.lastIndex = this.at;
    const raw = match.exec(this.text)![0].trim();
    if (raw === "") throw new SyntaxError("missing value");
    this.at = match.lastIndex;
    return SCALAR.test(raw) ? raw : JSON.stringify(raw);
  }

  private expect(char: string): void {
    this.space();
    if (this.text[this.at] !== char) throw new SyntaxError(`expected ${char}`);
    this.at++;
  }

  private space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }
}

/** The call inside one `<|tool_call>…<tool_call|>`, or undefined when it is not one (then the text stays text). */
export function parseGemmaCall(inner: string): TextToolCall | undefined {
  const text = inner.trim();
  if (!text.startsWith("call:")) return undefined;
  const open = text.indexOf("{");
  const name = (open === -1 ? text.slice(5) : text.slice(5, open)).trim();
  if (!NAME.test(name)) return undefined;
  if (open === -1) return { name, arguments: "{}" };
  try {
    const transcriber = new Transcriber(text.slice(open));
    const json = transcriber.value();
    if (!transcriber.finished()) return undefined;
    return { name, arguments: JSON.stringify(JSON.parse(json)) };
  } catch {
    return undefined;
  }
}
