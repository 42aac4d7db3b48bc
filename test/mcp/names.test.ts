import { describe, expect, it } from "vitest";
import {
  buildToolNameMap,
  emptyPrefixCollisions,
  sanitizeName,
  toolHash,
  TOOL_NAME_PATTERN,
  type ToolNameEntry,
  type ToolNameMap,
} from "../../src/mcp/names.ts";

/** Small seeded PRNG (mulberry32), so a failing case can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CHARS = [..."abcxyzABCXYZ0189_-", ..."._-/: ", "é", "中", "😀", "\u0000", "~"];

function randomName(next: () => number, maxLength: number): string {
  const length = Math.floor(next() * maxLength);
  let s = "";
  for (let i = 0; i < length; i++) s += CHARS[Math.floor(next() * CHARS.length)];
  return s;
}

function randomEntries(seed: number): ToolNameEntry[] {
  const next = rng(seed);
  const servers = Array.from({ length: 1 + Math.floor(next() * 5) }, () => randomName(next, 20) || "srv");
  const prefixes = new Map(servers.map((s) => [s, [undefined, "", "x_", "a.b/", "9"][Math.floor(next() * 5)]]));
  const entries: ToolNameEntry[] = [];
  for (let i = 0; i < 40; i++) {
    const server = servers[Math.floor(next() * servers.length)]!;
    // Short names collide often; long ones need shortening.
    const tool = next() < 0.3 ? randomName(next, 4) : randomName(next, 90);
    const prefix = prefixes.get(server);
    entries.push(prefix === undefined ? { server, tool } : { server, prefix, tool });
  }
  return entries;
}

function shuffled<T>(items: T[], seed: number): T[] {
  const next = rng(seed);
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

function sorted(map: ToolNameMap): [string, string, string][] {
  return [...map.names].map(([n, r]): [string, string, string] => [n, r.server, r.tool]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe("sanitizeName", () => {
  it.each([
    ["get_weather", "get_weather"],
    ["fs.read", "fs_read"],
    ["github/search", "github_search"],
    ["a:b c", "a_b_c"],
    ["1tool", "t_1tool"],
    ["_private", "t__private"],
    ["", "t_"],
    ["café", "caf_"],
    ["😀x", "t__x"],
  ])("%j -> %j", (input, output) => {
    expect(sanitizeName(input)).toBe(output);
    expect(output).toMatch(TOOL_NAME_PATTERN);
  });

  it("cuts to the maximum length", () => {
    expect(sanitizeName("a".repeat(100))).toHaveLength(64);
    expect(sanitizeName("a".repeat(100), 10)).toBe("a".repeat(10));
  });
});

describe("buildToolNameMap", () => {
  it("namespaces with <server>__ by default and maps back", () => {
    const map = buildToolNameMap([{ server: "weather", tool: "get_weather" }]);
    expect([...map.names]).toEqual([["weather__get_weather", { server: "weather", tool: "get_weather" }]]);
    expect(map.byOriginal.get("weather")?.get("get_weather")).toBe("weather__get_weather");
    expect(map.collisions).toEqual([]);
  });

  it("uses a custom prefix, or none", () => {
    const map = buildToolNameMap([
      { server: "files", prefix: "fs_", tool: "read_file" },
      { server: "everything", prefix: "", tool: "echo" },
    ]);
    expect([...map.names.keys()].sort()).toEqual(["echo", "fs_read_file"]);
  });

  it("sanitizes without a hash when nothing collides", () => {
    const map = buildToolNameMap([{ server: "my.server", tool: "fs/read" }]);
    expect([...map.names.keys()]).toEqual(["my_server__fs_read"]);
  });

  it("shortens long names with a hash of server and original name", () => {
    const tool = "x".repeat(100);
    const [name] = [...buildToolNameMap([{ server: "s", tool }]).names.keys()];
    expect(name).toHaveLength(64);
    expect(name).toBe(`s__${"x".repeat(57 - 3)}_${toolHash("s", tool).slice(0, 6)}`);
  });

  it("lets the name that needed no change keep it, and hashes the look-alike", () => {
    const map = buildToolNameMap([
      { server: "a", tool: "b.c" },
      { server: "a", tool: "b_c" },
    ]);
    expect(map.byOriginal.get("a")?.get("b_c")).toBe("a__b_c");
    expect(map.byOriginal.get("a")?.get("b.c")).toBe(`a__b_c_${toolHash("a", "b.c").slice(0, 6)}`);
    expect(map.collisions).toEqual([{ name: "a__b_c", tools: [{ server: "a", tool: "b.c" }, { server: "a", tool: "b_c" }], emptyPrefix: false }]);
    expect(emptyPrefixCollisions(map)).toEqual([]);
  });

  it("never renames an existing tool when a look-alike appears", () => {
    const before = buildToolNameMap([{ server: "a", tool: "b_c" }]);
    const after = buildToolNameMap([{ server: "a", tool: "b_c" }, { server: "a", tool: "b/c" }]);
    expect(after.byOriginal.get("a")?.get("b_c")).toBe(before.byOriginal.get("a")?.get("b_c"));
  });

  it("hashes every member when none has a better claim", () => {
    const map = buildToolNameMap([
      { server: "a", tool: "b.c" },
      { server: "a", tool: "b/c" },
    ]);
    for (const name of map.names.keys()) expect(name).toMatch(/^a__b_c_[0-9a-f]{6}$/);
  });

  it("reports collisions caused by an empty prefix", () => {
    const map = buildToolNameMap([
      { server: "one", prefix: "", tool: "search" },
      { server: "two", prefix: "", tool: "search" },
      { server: "x", prefix: "", tool: "weather__get" },
      { server: "weather", tool: "get" },
      { server: "three", tool: "fine" },
    ]);
    const found = emptyPrefixCollisions(map);
    expect(found.map((c) => c.name).sort()).toEqual(["search", "weather__get"]);
    expect(found.find((c) => c.name === "search")?.tools).toEqual([{ server: "one", tool: "search" }, { server: "two", tool: "search" }]);
    // Still usable: every tool has a distinct name.
    expect(map.names.size).toBe(5);
  });

  it("grows a hash that lands on another tool's name", () => {
    const clash = `b_c_${toolHash("a", "b.c").slice(0, 6)}`;
    const map = buildToolNameMap([
      { server: "a", tool: "b.c" },
      { server: "a", tool: "b_c" },
      { server: "a", tool: clash },
    ]);
    expect(map.byOriginal.get("a")?.get(clash)).toBe(`a__${clash}`);
    expect(map.byOriginal.get("a")?.get("b.c")).toBe(`a__b_c_${toolHash("a", "b.c").slice(0, 8)}`);
  });

  it("lists a tool given twice once", () => {
    const map = buildToolNameMap([{ server: "s", tool: "t" }, { server: "s", tool: "t" }]);
    expect(map.names.size).toBe(1);
    expect(map.collisions).toEqual([]);
  });

  describe("over random names", () => {
    const seeds = Array.from({ length: 200 }, (_, i) => i + 1);

    it.each(seeds)("seed %i: valid, unique, exact both ways, independent of order", (seed) => {
      const entries = randomEntries(seed);
      const map = buildToolNameMap(entries);
      const distinct = new Set(entries.map((e) => `${e.server}\u0000${e.tool}`));
      expect(map.names.size).toBe(distinct.size);
      for (const [name, ref] of map.names) {
        expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(map.byOriginal.get(ref.server)?.get(ref.tool)).toBe(name);
      }
      for (const e of entries) {
        const name = map.byOriginal.get(e.server)?.get(e.tool);
        expect(name).toBeDefined();
        expect(map.names.get(name!)).toEqual({ server: e.server, tool: e.tool });
      }
      expect(sorted(buildToolNameMap(entries))).toEqual(sorted(map));
      expect(sorted(buildToolNameMap(shuffled(entries, seed * 7919)))).toEqual(sorted(map));
    });
  });
});
