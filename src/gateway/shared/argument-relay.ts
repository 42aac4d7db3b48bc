/**
 * Streams one client tool call's argument text so that what the client puts together is what a
 * non-streamed answer would carry (`argumentText`): the model's text when it is valid JSON, the
 * repaired text when it was not.
 *
 * Deltas go out as they come while the text so far can still begin a valid JSON value (checked
 * incrementally with @streamparser/json). An unsettled end (a trailing comma, whitespace, a
 * literal or escape cut short: `unsettledStart`) waits for the next delta. From the first delta that
 * cannot continue valid JSON, the rest is held; at the end, the final text's remainder goes out.
 * Repairs (jsonrepair) keep the valid text they start from, so the final text starts with what
 * was sent; should it not, the client gets the model's own text, as a plain proxy would send.
 */
import { isDeepStrictEqual } from "node:util";
import { JSONParser } from "@streamparser/json";
import { repairedArgumentText } from "../../adapters/tool-arguments.ts";
import type { ToolCallBlock } from "../../core/index.ts";

const isSpace = (char: string | undefined) => char === " " || char === "\n" || char === "\r" || char === "\t";
/** Characters of a literal or a number, which the parser judges only once the token ends. */
const isTokenChar = (char: string | undefined) => char !== undefined && /[A-Za-z0-9.+-]/.test(char);
const LONGEST_HELD_TOKEN = 64;
const ESCAPE_CUT_SHORT = /\\(?:u[0-9a-fA-F]{0,3})?$/;

/**
 * Where the end of the text stops being settled: a trailing quote, comma and whitespace (a `}`
 * next would make the comma the broken part), a literal or number not yet ended (the parser judges a
 * token only once it ends: `{1` is not yet refused, `tr` may end as `true` or become `"tr"` in
 * a repair), or an escape cut short. Scans back from the end only, so a delta costs
 * its own length.
 */
function unsettledStart(text: string): number {
  let end = text.length;
  while (end > 0 && isSpace(text[end - 1])) end--;
  // A quote is judged only by what follows: the parser takes a string where a comma belongs
  // until the string closes (`1 "b"`), and a closing quote may turn out to be an inner one
  // (`"say "hi""`). It waits, with the whitespace before it.
  // (An escaped quote waits too: one character, and no counting of backslashes.)
  if (text[end - 1] === '"') {
    end--;
    while (end > 0 && isSpace(text[end - 1])) end--;
  }
  if (text[end - 1] === ",") return end - 1;
  if (end < text.length) return end;
  const escape = ESCAPE_CUT_SHORT.exec(text.slice(-6));
  if (escape) return text.length - escape[0].length;
  let start = end;
  while (start > 0 && end - start < LONGEST_HELD_TOKEN && isTokenChar(text[start - 1])) start--;
  return start;
}

function validator(): JSONParser {
  // Only its verdict is wanted: values are not kept (keepStack off) and are dropped.
  const parser = new JSONParser({ keepStack: false });
  parser.onValue = () => undefined;
  return parser;
}

/**
 * Notices a string that opens right after a value (`{"a": 1 "b"`: a comma is missing), which
 * the parser reports only once that string closes, after its opening quote went out.
 */
class StringOpenings {
  private inString = false;
  private escaped = false;
  /** The last character outside strings, spaces aside. */
  private last: string | undefined;

  /** False once a string opens where a value has just ended. */
  feed(delta: string): boolean {
    for (const char of delta) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === "\\") this.escaped = true;
        else if (char === '"') [this.inString, this.last] = [false, char];
      } else if (char === '"') {
        if (this.last !== undefined && !"{[,:".includes(this.last)) return false;
        this.inString = true;
      } else if (!isSpace(char)) {
        this.last = char;
      }
    }
    return true;
  }
}

export class ArgumentRelay {
  private readonly parser = validator();
  private readonly openings = new StringOpenings();
  private sent = "";
  private held = "";
  private valid = true;

  /** The text to send now for this delta (maybe ""). */
  push(delta: string): string {
    if (this.valid) {
      try {
        this.parser.write(delta);
        this.valid = this.openings.feed(delta);
      } catch {
        this.valid = false;
      }
    }
    // Held: everything once the text cannot be valid; and blank deltas, which settle nothing (a
    // model stuck emitting whitespace must not cost a rescan per delta).
    if (!this.valid || delta.trim() === "") {
      this.held += delta;
      return "";
    }
    const pending = this.held + delta;
    const cut = unsettledStart(pending);
    this.held = pending.slice(cut);
    const out = pending.slice(0, cut);
    this.sent += out;
    return out;
  }

  /** The text still to send once the call is complete and its final argument text is known. */
  finish(final: string): string {
    const rest = final.startsWith(this.sent) ? final.slice(this.sent.length) : this.held;
    this.sent += rest;
    this.held = "";
    return rest;
  }
}

/**
 * The model's own argument text when it is valid JSON; the repaired text when jsonrepair had
 * to fix it (jsonrepair's own text, which keeps the model's valid start, so a stream can send
 * that start before the repair is known; the serialized arguments when they differ from it);
 * the broken text itself when it could not be repaired (the client decides, rather than
 * running its tool with `{}`).
 */
export function argumentText(call: ToolCallBlock): string {
  if (call.argumentsError !== undefined) return call.rawArguments;
  if (call.rawArguments.trim() === "") return JSON.stringify(call.arguments);
  try {
    JSON.parse(call.rawArguments);
    return call.rawArguments;
  } catch {
    return repairedText(call) ?? JSON.stringify(call.arguments);
  }
}

function repairedText(call: ToolCallBlock): string | undefined {
  const text = repairedArgumentText(call.rawArguments);
  if (text === undefined) return undefined;
  try {
    return isDeepStrictEqual(JSON.parse(text), call.arguments) ? text : undefined;
  } catch {
    return undefined;
  }
}
