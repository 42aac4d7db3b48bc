/**
 * Function names a provider accepts, and renaming the others for one request. The gateway's own
 * MCP tool names already fit every provider; a client's tools (`1tool`, `github/search`,
 * `fs.read`) may not. A name is renamed only for the request and mapped back exactly in the
 * response.
 *
 * (src/mcp/names.ts sanitizes for every provider at once and keys by server; this map works on
 * one request's bare names and keeps what the provider allows.)
 */
import { createHash } from "node:crypto";

export interface FunctionNameRules {
  /** For error messages. */
  provider: string;
  valid: RegExp;
  /** Characters to replace with `_` (global). */
  invalidChars: RegExp;
  /** A name must start like this, else `_` is put in front. */
  start: RegExp;
  maxLength: number;
}

/**
 * Gemini: "Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9),
 * underscores (_), dots (.) or dashes (-), with a maximum length of 64."
 */
export const GEMINI_FUNCTION_NAMES: FunctionNameRules = {
  provider: "Gemini",
  valid: /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/,
  invalidChars: /[^a-zA-Z0-9_.-]/g,
  start: /^[a-zA-Z_]/,
  maxLength: 64,
};

/**
 * OpenAI (and Mistral): `^[a-zA-Z0-9_-]+$`, at most 64 ("Invalid 'tools[0].function.name':
 * string does not match pattern"; "string_above_max_length"), in `tools` and in the history's
 * `tool_calls` alike.
 */
export const OPENAI_FUNCTION_NAMES: FunctionNameRules = {
  provider: "OpenAI",
  valid: /^[a-zA-Z0-9_-]{1,64}$/,
  invalidChars: /[^a-zA-Z0-9_-]/g,
  start: /^./,
  maxLength: 64,
};

/** Anthropic: `tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`. */
export const ANTHROPIC_FUNCTION_NAMES: FunctionNameRules = {
  provider: "Anthropic",
  valid: /^[a-zA-Z0-9_-]{1,128}$/,
  invalidChars: /[^a-zA-Z0-9_-]/g,
  start: /^./,
  maxLength: 128,
};

const HASH_LENGTH = 8;

function sanitize(name: string, rules: FunctionNameRules): string {
  const cleaned = name.replace(rules.invalidChars, "_");
  return rules.start.test(cleaned) ? cleaned : `_${cleaned}`;
}

function hashed(base: string, name: string, length: number, maxLength: number): string {
  const hash = createHash("sha256").update(name).digest("hex").slice(0, length);
  return `${base.slice(0, maxLength - 1 - length)}_${hash}`;
}

/** Request name <-> wire name for one request. Names not in the map pass unchanged both ways. */
export class FunctionNameMap {
  private readonly toWire = new Map<string, string>();
  private readonly fromWire = new Map<string, string>();

  /**
   * Valid names are taken first and never change, so the result does not depend on the order
   * of `names`: an invalid `1tool` cannot take the `_1tool` a real tool already has.
   */
  constructor(
    names: Iterable<string>,
    private readonly rules: FunctionNameRules = GEMINI_FUNCTION_NAMES,
  ) {
    const unique = [...new Set(names)];
    const taken = new Set(unique.filter((name) => rules.valid.test(name)));
    for (const name of unique.filter((n) => !rules.valid.test(n)).sort()) {
      const wire = this.freeName(name, taken);
      taken.add(wire);
      this.toWire.set(name, wire);
      this.fromWire.set(wire, name);
    }
  }

  get renamed(): number {
    return this.toWire.size;
  }

  wire(name: string): string {
    return this.toWire.get(name) ?? name;
  }

  original(wireName: string): string {
    return this.fromWire.get(wireName) ?? wireName;
  }

  private freeName(name: string, taken: Set<string>): string {
    const { maxLength } = this.rules;
    const base = sanitize(name, this.rules);
    if (base.length <= maxLength && !taken.has(base)) return base;
    for (let length = HASH_LENGTH; length <= 40; length += 4) {
      const candidate = hashed(base, name, length, maxLength);
      if (!taken.has(candidate)) return candidate;
    }
    throw new Error(`no ${this.rules.provider} function name is free for "${name}"`);
  }
}
