import { describe, expect, it } from "vitest";
import { randomHex } from "../../src/core/random-id.ts";

describe("randomHex", () => {
  it("gives lower-case hex of twice the bytes asked, 16 by default", () => {
    expect(randomHex()).toMatch(/^[0-9a-f]{32}$/);
    expect(randomHex(12)).toMatch(/^[0-9a-f]{24}$/);
    expect(randomHex(1)).toMatch(/^[0-9a-f]{2}$/);
  });

  it("never repeats, and keeps its format, across many refills of its pool", () => {
    // 4 KB per refill: 2,000 ids of 16 bytes refill it about eight times; ids of 7 bytes leave
    // a few bytes unused before each refill, at a different offset each time.
    for (const [bytes, format] of [[16, /^[0-9a-f]{32}$/], [7, /^[0-9a-f]{14}$/]] as const) {
      const ids = Array.from({ length: 2000 }, () => randomHex(bytes));
      expect(ids.filter((id) => !format.test(id))).toEqual([]);
      expect(new Set(ids).size).toBe(2000);
    }
  });

  it("refuses a size it cannot serve from its pool", () => {
    expect(() => randomHex(0)).toThrow(RangeError);
    expect(() => randomHex(257)).toThrow(RangeError);
    expect(() => randomHex(1.5)).toThrow(RangeError);
  });
});
