/** extend(): what `{ ...base, ...extra }` makes, without Node 20's cost for extending a spread (src/core/extend.ts). */
import { describe, expect, it } from "vitest";
import { extend } from "../../src/core/extend.ts";

describe("extend", () => {
  it("has the spread's keys, in the spread's order, with its values, and leaves both inputs alone", () => {
    const base = { a: 1, b: { nested: true }, c: undefined as string | undefined };
    const extra = { d: "new", a: 2 };
    const made = extend(base, extra);
    const spread = { ...base, ...extra };
    expect(made).toEqual(spread);
    expect(Object.keys(made)).toEqual(Object.keys(spread));
    expect(JSON.stringify(made)).toBe(JSON.stringify(spread));
    expect(made.b).toBe(base.b);
    expect(base).toEqual({ a: 1, b: { nested: true }, c: undefined });
    expect(extra).toEqual({ d: "new", a: 2 });
    expect(made).not.toBe(base);
  });
});
