/**
 * flatMapped: the built-in flatMap's answer (one level deep, values that are not arrays kept as
 * they are), for the request path's conversions.
 */
import { describe, expect, it } from "vitest";
import { flatMapped } from "../../src/core/flat-mapped.ts";

describe("flatMapped", () => {
  const cases: [string, unknown[], (item: unknown, index: number) => unknown][] = [
    ["arrays and empty arrays", [1, 2, 3], (n) => (Number(n) % 2 === 1 ? [n, n] : [])],
    ["values that are not arrays kept", [1, "a", null, undefined, { x: 1 }], (v) => v],
    ["one level only", [1, 2], (n) => [[n], n]],
    ["the index", ["a", "b"], (v, i) => [`${String(v)}${i}`]],
  ];
  for (const [name, items, f] of cases) {
    it(name, () => {
      expect(flatMapped(items, f)).toEqual(items.flatMap(f as (item: unknown, index: number) => unknown));
    });
  }

  it("a new array, the input untouched", () => {
    const items = [[1], [2]];
    const out = flatMapped(items, (item) => item);
    expect(out).toEqual([1, 2]);
    expect(items).toEqual([[1], [2]]);
  });
});
