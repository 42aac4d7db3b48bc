import { describe, expect, it } from "vitest";
import { normalizeSchema, toOpenAI } from "../../../src/core/schema/index.ts";
import { fixture } from "./corpus.ts";

describe("toOpenAI", () => {
  it("gives arrays an items schema: none, boolean, tuples (empty ones too), open and closed", () => {
    const props = (properties: object) => toOpenAI({ type: "object", properties }).schema["properties"];
    expect(props({ a: { type: "array" } })).toEqual({ a: { type: "array", items: {} } });
    expect(props({ a: { type: "array", items: true }, b: { type: "array", items: false } })).toEqual({ a: { type: "array", items: {} }, b: { type: "array", items: {}, maxItems: 0 } });
    expect(props({ a: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false } })).toEqual({
      a: { type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] }, maxItems: 2 },
    });
    expect(props({ a: { type: "array", prefixItems: [{ type: "string" }], items: false } })).toEqual({ a: { type: "array", prefixItems: [{ type: "string" }], items: { type: "string" }, maxItems: 1 } });
    expect(props({ a: { type: "array", items: [] }, b: { type: "array", prefixItems: [], items: false } })).toEqual({
      a: { type: "array", items: {} },
      b: { type: "array", prefixItems: [], items: {}, maxItems: 0 },
    });
  });

  it.each([
    ["undefined", undefined],
    ["an empty schema", {}],
  ])("turns %s into an empty object schema", (_name, schema) => {
    expect(toOpenAI(schema)).toEqual({ schema: { type: "object", properties: {} }, warnings: [] });
  });

  it("adds the missing root type and properties without a warning", () => {
    expect(toOpenAI(fixture("no-type-root")).schema).toEqual({ type: "object", properties: { q: { type: "string" } }, required: ["q"] });
    expect(toOpenAI({ type: "object" })).toEqual({ schema: { type: "object", properties: {} }, warnings: [] });
  });

  it("replaces a non-object root and keeps it readable in the description", () => {
    const { schema, warnings } = toOpenAI(fixture("non-object-root"));
    expect(schema["type"]).toBe("object");
    expect(schema["properties"]).toEqual({});
    expect(schema["description"]).toContain('declared input schema: {"type":"string","description":"A query"}');
    expect(warnings).toEqual(['#: root type "string" is not an object; replaced by an empty object schema']);
  });

  it("narrows a nullable root to an object", () => {
    const { schema, warnings } = toOpenAI({ type: ["object", "null"], properties: { a: { type: "string" } } });
    expect(schema["type"]).toBe("object");
    expect(warnings[0]).toContain("narrowed");
  });

  it("merges a top-level union of object shapes into one object", () => {
    const { schema, warnings } = toOpenAI(fixture("top-level-anyof"));
    expect(schema).toEqual({
      type: "object",
      description: "Search or fetch (one of these argument sets: {mode, query, limit?} | {mode, id})",
      properties: { mode: { enum: ["search", "fetch"] }, query: { type: "string" }, limit: { type: "integer" }, id: { type: "string" } },
      required: ["mode"],
    });
    expect(warnings).toEqual(["#: top-level anyOf of 2 alternatives merged into one object"]);
  });

  it("combines a property that differs between shapes into an anyOf", () => {
    const { schema } = toOpenAI({
      oneOf: [
        { type: "object", properties: { v: { type: "string" } }, required: ["v"] },
        { type: "object", properties: { v: { type: "integer" } }, required: ["v"] },
      ],
    });
    expect(schema["properties"]).toEqual({ v: { anyOf: [{ type: "string" }, { type: "integer" }] } });
    expect(schema["required"]).toEqual(["v"]);
  });

  it("keeps differently typed constants apart", () => {
    const { schema } = toOpenAI({
      anyOf: [
        { type: "object", properties: { v: { type: "string", const: "a" } } },
        { type: "object", properties: { v: { type: "integer", const: 1 } } },
      ],
    });
    expect(schema["properties"]).toEqual({ v: { anyOf: [{ type: "string", const: "a" }, { type: "integer", const: 1 }] } });
  });

  it("warns when allOf parts cannot agree", () => {
    const { schema, warnings } = toOpenAI({ allOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "object", properties: { a: { type: "integer" } } }] });
    expect(schema["properties"]).toEqual({ a: { type: "string" } });
    expect(warnings).toContain("#/properties/a: allOf parts have no type in common; kept the first");
  });

  it("notes non-object alternatives of a top-level union it had to drop", () => {
    const { schema, warnings } = toOpenAI(fixture("top-level-oneof-mixed"));
    expect(schema["properties"]).toEqual({ text: { type: "string" } });
    expect(schema["description"]).toContain('non-object alternatives not representable here: [{"type":"string"}]');
    expect(warnings).toContain("#/oneOf: 1 non-object alternative(s) of a top-level oneOf dropped");
  });

  it("merges a top-level allOf", () => {
    const { schema } = toOpenAI(fixture("top-level-allof"));
    expect(schema).toEqual({ type: "object", properties: { a: { type: "string" }, b: { type: "integer", minimum: 0 } }, required: ["a"] });
  });

  it("inlines references but keeps recursive ones, which OpenAI resolves", () => {
    const { schema, warnings } = toOpenAI(fixture("ref-cycle-defs"));
    expect(schema["properties"]).toEqual({ root: { $ref: "#/$defs/Node" } });
    expect(schema["$defs"]).toBeDefined();
    expect(warnings).toEqual([]);
  });

  it("passes everything else through unchanged", () => {
    const formats = fixture("formats");
    expect(toOpenAI(formats)).toEqual({ schema: formats, warnings: [] });
    expect(normalizeSchema(formats, "openai")).toEqual(toOpenAI(formats));
  });
});
