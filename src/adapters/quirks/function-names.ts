/**
 * Function names Gemini accepts: "Must start with a letter or an underscore. Must be alphameric
 * (a-z, A-Z, 0-9), underscores (_), dots (.) or dashes (-), with a maximum length of 64."
 * The gateway's own MCP tool names already fit; client tools (`1tool`, `github/search`) may not.
 * A name is renamed only for the request and mapped back exactly in the response.
 *
 * (src/mcp/names.ts sanitizes for every provider at once and keys by server; this map works on
 * one request's bare names and keeps the `.` and `-` Gemini allows.)
 */
import { createHash } from "node:crypto";

const VALID = /^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/;
const MAX_LENGTH = 64;
const HASH_LENGTH = 8;

function sanitize(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_.-]/g, "_");
  return /^[a-zA-Z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

function hashed(base: string, name: string, length: number): string {
  const hash = createHash("sha256").update(name).digest("hex").slice(0, length);
  return `${base.slice(0, MAX_LENGTH - 1 - length)}_${hash}`;
}

/** Request name <-> wire name for one request. Names not in the map pass unchanged both ways. */
export class FunctionNameMap {
  private readonly toWire = new Map<string, string>();
  private readonly fromWire = new Map<string, string>();

  /**
   * Valid names are taken first and never change, so the result does not depend on the order
   * of `names`: an invalid `1tool` cannot take the `_1tool` a real tool already has.
   */
  constructor(names: Iterable<string>) {
    const unique = [...new Set(names)];
    const taken = new Set(unique.filter((name) => VALID.test(name)));
    for (const name of unique.filter((n) => !VALID.test(n)).sort()) {
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
    const base = sanitize(name);
    if (base.length <= MAX_LENGTH && !taken.has(base)) return base;
    for (let length = HASH_LENGTH; length <= 40; length += 4) {
      const candidate = hashed(base, name, length);
      if (!taken.has(candidate)) return candidate;
    }
    throw new Error(`no Gemini function name is free for "${name}"`);
  }
}
