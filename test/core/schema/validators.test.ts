/** The provider-rule validators must be able to fail, or the corpus test proves nothing. */
import { describe, expect, it } from "vitest";
import { geminiSchemaErrors } from "../../helpers/gemini-schema-rules.ts";
import { openaiStrictErrors } from "../../helpers/openai-strict-rules.ts";

const obj = (properties: object, extra: object = {}) => ({ type: "object", properties, ...extra });

describe("geminiSchemaErrors", () => {
  it("accepts a well-formed schema", () => {
    const ok = obj(
      { a: { type: "string", enum: ["x"], nullable: true }, t: { type: "string", format: "date-time" }, n: { type: "integer", format: "int64", minimum: 0 } },
      { required: ["a"] },
    );
    expect(geminiSchemaErrors(ok)).toEqual([]);
  });

  it.each([
    ["unknown keyword", obj({ a: { type: "string" } }, { additionalProperties: false }), "Cannot find field"],
    ["$schema", { ...obj({ a: { type: "string" } }), $schema: "x" }, "Cannot find field"],
    ["const", obj({ a: { type: "string", const: "x" } }), "Cannot find field"],
    ["type list", obj({ a: { type: ["string", "null"] } }), "Proto field is not repeating"],
    ["missing type", obj({ a: { description: "x" } }), "must be specified"],
    ["integer enum", obj({ a: { type: "integer", enum: [1, 2] } }), "only allowed for STRING type"],
    ["non-string enum value", obj({ a: { type: "string", enum: ["a", 2] } }), "TYPE_STRING"],
    ["uri format", obj({ a: { type: "string", format: "uri" } }), "only 'enum' and 'date-time'"],
    ["$ref", obj({ a: { $ref: "#/$defs/x" } }), "$ref"],
    ["empty properties", obj({ a: obj({}) }), "should be non-empty for OBJECT type"],
    ["properties on a string", obj({ a: { type: "string", properties: { b: { type: "string" } } } }), "only allowed for OBJECT type"],
    ["array without items", obj({ a: { type: "array" } }), "items: missing field"],
    ["required not a property", obj({ a: { type: "string" } }, { required: ["b"] }), "is not defined"],
    ["bad anyOf branch", obj({ a: { anyOf: [{ type: "string" }, { type: "null" }] } }), "invalid type"],
    ["non-object root", { type: "string" }, "must be OBJECT"],
  ])("rejects %s", (_name, schema, message) => {
    const errors = geminiSchemaErrors(schema);
    expect(errors.join("\n")).toContain(message);
  });
});

describe("openaiStrictErrors", () => {
  const strictObj = (properties: Record<string, unknown>) => ({ type: "object", properties, required: Object.keys(properties), additionalProperties: false });

  it("accepts a well-formed schema", () => {
    const ok = strictObj({ a: { type: ["string", "null"], format: "email" }, b: { anyOf: [strictObj({ c: { type: "integer", minimum: 1 } }), { type: "null" }] } });
    expect(openaiStrictErrors(ok)).toEqual([]);
  });

  it.each([
    ["missing additionalProperties", { type: "object", properties: { a: { type: "string" } }, required: ["a"] }, "'additionalProperties' is required"],
    ["nested open object", strictObj({ p: { type: "object", properties: {}, required: [] } }), "'additionalProperties' is required"],
    ["optional property", { ...strictObj({ a: { type: "string" }, b: { type: "string" } }), required: ["a"] }, "Missing 'b'"],
    ["oneOf", strictObj({ a: { oneOf: [{ type: "string" }, { type: "null" }] } }), "'oneOf' is not permitted"],
    ["allOf", strictObj({ a: { type: "string", allOf: [] } }), "'allOf' is not permitted"],
    ["default", strictObj({ a: { type: "string", default: "x" } }), "'default' is not permitted"],
    ["minLength", strictObj({ a: { type: "string", minLength: 1 } }), "'minLength' is not permitted"],
    ["uri format", strictObj({ a: { type: "string", format: "uri" } }), "'uri' is not a valid format"],
    ["untyped", strictObj({ a: { description: "x" } }), "must have a 'type' key"],
    ["array without items", strictObj({ a: { type: "array" } }), "'items' is required"],
    ["root anyOf", { anyOf: [strictObj({})] }, "root must be"],
  ])("rejects %s", (_name, schema, message) => {
    expect(openaiStrictErrors(schema).join("\n")).toContain(message);
  });

  it("checks size limits only when asked", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 6; i++) deep = strictObj({ x: deep });
    expect(openaiStrictErrors(deep)).toEqual([]);
    const errors = openaiStrictErrors(deep, { maxDepth: 5, maxProperties: 100, maxEnumValues: 500 });
    expect(errors.join("\n")).toContain("6 levels of nesting exceeds limit of 5");
  });
});
