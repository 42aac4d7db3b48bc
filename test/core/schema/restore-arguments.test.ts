import { describe, expect, it } from "vitest";
import { restoreArguments } from "../../../src/core/schema/index.ts";
import { captured, fixture } from "./corpus.ts";
import { deepFreeze } from "./freeze.ts";

const real = (name: string) => captured().find((e) => e.name === name)!.schema;

describe("restoreArguments", () => {
  it("drops the nulls strict mode makes a model send for left-out optional properties", () => {
    const args = deepFreeze({ path: "a.txt", tail: null, head: null });
    expect(restoreArguments(args, real("filesystem/read_file"))).toEqual({ path: "a.txt" });
  });

  it("keeps nulls the original schema accepts, and nulls of required properties", () => {
    const schema = fixture("type-arrays");
    expect(restoreArguments({ s: null, o: null, a: null }, schema)).toEqual({ s: null, o: null, a: null });
    expect(restoreArguments({ note: null, n: null }, fixture("openapi-nullable"))).toEqual({ note: null });
    expect(restoreArguments({ anything: null }, fixture("untyped"))).toEqual({ anything: null });
  });

  it("restores enum values Gemini had to send as strings", () => {
    const args = { level: "2", ratio: "1.5", flag: "true", mixed: "0", untyped: "x" };
    expect(restoreArguments(args, fixture("enums"))).toEqual({ level: 2, ratio: 1.5, flag: true, mixed: 0, untyped: "x" });
    expect(restoreArguments({ kind: "circle", version: "2" }, fixture("const"))).toEqual({ kind: "circle", version: 2 });
  });

  it("works through nesting, references and allOf", () => {
    const schema = {
      type: "object",
      $defs: { Item: { type: "object", properties: { n: { type: "integer", enum: [1, 2] }, note: { type: "string" } } } },
      properties: { items: { type: "array", items: { $ref: "#/$defs/Item" } }, both: { allOf: [{ properties: { k: { enum: [3] } } }] } },
    };
    const args = { items: [{ n: "1", note: null }, { n: "2", note: "x" }], both: { k: "3" } };
    expect(restoreArguments(args, schema)).toEqual({ items: [{ n: 1 }, { n: 2, note: "x" }], both: { k: 3 } });
  });

  it("leaves everything else alone", () => {
    const args = { path: "x", extra: null, other: "2" };
    expect(restoreArguments(args, real("filesystem/read_file"))).toEqual(args);
    expect(restoreArguments(args, undefined)).toEqual(args);
    expect(restoreArguments({ level: "7" }, fixture("enums"))).toEqual({ level: "7" });
  });
});
