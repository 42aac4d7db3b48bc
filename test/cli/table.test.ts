/** The terminal table: aligned, and never wider than 100 columns. */
import { describe, expect, it } from "vitest";
import { renderTable, wrap } from "../../src/cli/table.ts";

describe("renderTable", () => {
  it("aligns short tables as they are", () => {
    expect(renderTable(["a", "bb"], [["1", "2"], ["333", ""]])).toBe("a    bb\n---  --\n1    2\n333");
  });

  it("wraps a long last cell under its column, and puts notes under their row", () => {
    const error = `${"word ".repeat(40)}https://example.com/${"x".repeat(120)}`;
    const out = renderTable(["name", "status", "error"], [{ cells: ["srv", "failed", error], notes: ["quirks: a, b, c"] }, ["ok", "ready", ""]]);
    const lines = out.split("\n");
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    const column = lines[0]!.indexOf("error");
    expect(lines[2]!.startsWith("srv   failed  word word")).toBe(true);
    const continued = lines.slice(3).filter((l) => l.startsWith(" ".repeat(column)));
    expect([lines[2]!.slice(column), ...continued.map((l) => l.slice(column))].join(" ").replace(/(x) (?=x)/g, "$1")).toBe(error);
    expect(lines).toContain("  quirks: a, b, c");
    expect(lines.at(-1)).toBe("ok    ready");
  });

  it("puts the last cell under the row when the other columns leave too little room", () => {
    const out = renderTable(["name", "error"], [["n".repeat(90), "something went wrong"]]);
    const lines = out.split("\n");
    expect(lines[2]).toBe("n".repeat(90));
    expect(lines[3]).toBe("  something went wrong");
  });
});

describe("wrap", () => {
  it("breaks at spaces, cutting only words longer than the width", () => {
    expect(wrap("aa bb cc", 5)).toEqual(["aa bb", "cc"]);
    expect(wrap("abcdefghij k", 4)).toEqual(["abcd", "efgh", "ij k"]);
    expect(wrap("short", 10)).toEqual(["short"]);
  });
});
