/**
 * Namespaced tool names. A tool `get_weather` of server `weather` is `weather__get_weather`
 * (prefix configurable per server; `""` keeps the name). Exposed names match
 * `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`, which every provider accepts (OpenAI: `[a-zA-Z0-9_-]`, ≤64;
 * Gemini: must start with a letter or `_`; Anthropic: ≤128).
 *
 * A name that had to be shortened, or that collides with another, gets `_` + hex digits of
 * sha256(`server\0tool`). Every decision depends only on the set of tools, never on listing
 * order, so names survive restarts and reconnections; and the map back is exact.
 */
import { createHash } from "node:crypto";

export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;
export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 6;

export interface ToolNameEntry {
  server: string;
  /** Prepended to the tool name; `undefined` means the default `<server>__`, `""` none. */
  prefix?: string;
  tool: string;
}

export interface ToolRef {
  server: string;
  tool: string;
}

/** Tools whose names came out the same before disambiguation. */
export interface ToolNameCollision {
  /** The name they all wanted. */
  name: string;
  tools: ToolRef[];
  /** True when a tool of a server with `prefix: ""` is involved: the caller refuses to start. */
  emptyPrefix: boolean;
}

export interface ToolNameMap {
  /** Exposed name → server and original tool name. */
  names: Map<string, ToolRef>;
  /** Server → original tool name → exposed name. */
  byOriginal: Map<string, Map<string, string>>;
  /** Every collision, resolved with hash suffixes; see `emptyPrefix`. */
  collisions: ToolNameCollision[];
}

export function defaultPrefix(server: string): string {
  return `${server}__`;
}

/** Hex sha256 of `server\0tool`: the same tool always gets the same suffix. */
export function toolHash(server: string, tool: string): string {
  return createHash("sha256").update(`${server}\u0000${tool}`).digest("hex");
}

/**
 * `name` with invalid characters replaced by `_`, a `t_` in front when it does not start
 * with a letter, cut to `maxLength`. Say `sanitizeName(x) !== x` to know it had to change.
 */
export function sanitizeName(name: string, maxLength = MAX_TOOL_NAME_LENGTH): string {
  let out = "";
  for (const ch of name) out += /^[a-zA-Z0-9_-]$/.test(ch) ? ch : "_";
  if (!/^[a-zA-Z]/.test(out)) out = `t_${out}`;
  return out.slice(0, maxLength);
}

/** `base` cut so that `_` + `hashLength` hex digits still fit in 64. */
function withHash(base: string, ref: ToolRef, hashLength: number): string {
  return `${base.slice(0, MAX_TOOL_NAME_LENGTH - 1 - hashLength)}_${toolHash(ref.server, ref.tool).slice(0, hashLength)}`;
}

interface Candidate {
  ref: ToolRef;
  emptyPrefix: boolean;
  /** Prefix + tool, unsanitized. */
  raw: string;
  /** Sanitized, not yet shortened. */
  full: string;
  /** What it gets unless it collides. */
  wanted: string;
}

function key(ref: ToolRef): string {
  return `${ref.server}\u0000${ref.tool}`;
}

function candidates(entries: ToolNameEntry[]): Candidate[] {
  const unique = new Map<string, Candidate>();
  for (const e of entries) {
    const ref = { server: e.server, tool: e.tool };
    const prefix = e.prefix ?? defaultPrefix(e.server);
    const raw = prefix + e.tool;
    const full = sanitizeName(raw, Infinity);
    const wanted = full.length > MAX_TOOL_NAME_LENGTH ? withHash(full, ref, HASH_LENGTH) : full;
    unique.set(key(ref), { ref, emptyPrefix: prefix === "", raw, full, wanted });
  }
  // Sorted, so that ties are broken the same way whatever the listing order.
  return [...unique.values()].sort((a, b) => (key(a.ref) < key(b.ref) ? -1 : key(a.ref) > key(b.ref) ? 1 : 0));
}

function groupBy<T>(items: T[], by: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(by(item), [...(groups.get(by(item)) ?? []), item]);
  return groups;
}

/**
 * First assignment: a name nobody else wants is kept; among tools wanting the same name, the
 * one whose name needed no change at all keeps it (so adding a look-alike never renames an
 * existing tool) and the others get a hash suffix.
 */
function firstPass(list: Candidate[]): { assigned: Map<Candidate, string>; collisions: ToolNameCollision[] } {
  const assigned = new Map<Candidate, string>();
  const collisions: ToolNameCollision[] = [];
  for (const [name, group] of groupBy(list, (c) => c.wanted)) {
    const exact = group.filter((c) => c.raw === c.wanted);
    const keeper = group.length === 1 ? group[0] : exact.length === 1 ? exact[0] : undefined;
    for (const c of group) assigned.set(c, c === keeper ? name : withHash(c.full, c.ref, HASH_LENGTH));
    if (group.length > 1) collisions.push({ name, tools: group.map((c) => c.ref), emptyPrefix: group.some((c) => c.emptyPrefix) });
  }
  return { assigned, collisions };
}

/** Hash suffixes that still clash (with a kept name or each other) grow until unique. */
function settle(assigned: Map<Candidate, string>, hashed: Set<Candidate>): void {
  for (let length = HASH_LENGTH + 2; ; length += 2) {
    // Distinct tools have distinct sha256s, so a few more digits always separate them.
    if (length > 40) throw new Error("tool names could not be made unique");
    const clashing = [...groupBy([...assigned.keys()], (c) => assigned.get(c) ?? "").values()].filter((g) => g.length > 1);
    if (clashing.length === 0) return;
    for (const group of clashing) {
      for (const c of group) {
        if (!hashed.has(c) && group.some((o) => hashed.has(o))) continue;
        hashed.add(c);
        assigned.set(c, withHash(c.full, c.ref, length));
      }
    }
  }
}

/** Exposed names for a set of tools; see the module comment. */
export function buildToolNameMap(entries: ToolNameEntry[]): ToolNameMap {
  const list = candidates(entries);
  const { assigned, collisions } = firstPass(list);
  const hashed = new Set(list.filter((c) => assigned.get(c) !== c.wanted || c.full.length > MAX_TOOL_NAME_LENGTH));
  settle(assigned, hashed);
  const names = new Map<string, ToolRef>();
  const byOriginal = new Map<string, Map<string, string>>();
  for (const c of list) {
    const name = assigned.get(c) ?? c.wanted;
    names.set(name, c.ref);
    const perServer = byOriginal.get(c.ref.server) ?? new Map<string, string>();
    perServer.set(c.ref.tool, name);
    byOriginal.set(c.ref.server, perServer);
  }
  return { names, byOriginal, collisions };
}

/** Collisions that only exist because a server's prefix is `""` (the caller refuses those). */
export function emptyPrefixCollisions(map: ToolNameMap): ToolNameCollision[] {
  return map.collisions.filter((c) => c.emptyPrefix);
}
