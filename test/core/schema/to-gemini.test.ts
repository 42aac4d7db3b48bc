import { describe, expect, it } from "vitest";
import { normalizeSchema, toGemini } from "../../../src/core/schema/index.ts";
import { captured, fixture } from "./corpus.ts";

const props = (schema: Record<string, unknown>) => schema["properties"] as Record<string, Record<string, unknown>>;
const real = (name: string) => captured().find((e) => e.name === name)!.schema;

describe("toGemini", () => {
  it("sends an argument-less tool as a bare object (no empty properties map)", () => {
    expect(toGemini(real("everything/get-env"))).toEqual({ schema: { type: "object" }, warnings: [] });
    expect(toGemini(undefined).schema).toEqual({ type: "object" });
  });

  it("drops $schema and keeps the rest of a real schema (memory search_nodes)", () => {
    const { $schema: _drop, ...rest } = real("memory/search_nodes");
    expect(toGemini(real("memory/search_nodes"))).toEqual({ schema: rest, warnings: [] });
  });

  it("turns type lists and null alternatives into nullable", () => {
    const p = props(toGemini(fixture("type-arrays")).schema);
    expect(p["s"]).toEqual({ type: "string", maxLength: 10, nullable: true });
    expect(p["o"]).toEqual({ type: "object", properties: { k: { type: "string" } }, required: ["k"], nullable: true });
    expect(p["sn"]).toEqual({ anyOf: [{ type: "string", minLength: 1, nullable: true }, { type: "number", minimum: 0, nullable: true }] });
    const n = props(toGemini(fixture("nested-anyof")).schema);
    expect(n["maybe"]).toEqual({ type: "string", description: "(format: email)", nullable: true });
    expect(props(toGemini(fixture("openapi-nullable")).schema)["note"]).toEqual({ type: "string", nullable: true });
  });

  it("converts what is left of a union without null from scratch", () => {
    const p = props(toGemini(fixture("anyof-single-branch")).schema);
    expect(p["a"]).toEqual({ type: "string", enum: ["x"], nullable: true });
    expect(p["b"]).toEqual({ anyOf: [{ type: "string", nullable: true }, { type: "integer", nullable: true }] });
    expect(p["c"]).toEqual({ type: "string", nullable: true });
    expect(p["d"]).toEqual({ type: "integer", minimum: 1, description: "Count", nullable: true });
  });

  it("turns const into a one-value string enum", () => {
    const p = props(toGemini(fixture("const")).schema);
    expect(p["kind"]).toEqual({ type: "string", enum: ["circle"] });
    expect(p["version"]).toEqual({ type: "string", enum: ["2"], description: "(integer value given as a string)" });
  });

  it("turns enums of other types into strings, keeping the original type and bounds visible", () => {
    const { schema, warnings } = toGemini(fixture("enums"));
    expect(props(schema)["level"]).toEqual({ type: "string", enum: ["1", "2", "3"], default: "2", description: "(integer value given as a string; minimum: 1)" });
    expect(props(schema)["flag"]).toMatchObject({ type: "string", enum: ["true"] });
    expect(props(schema)["nullable"]).toEqual({ type: "string", enum: ["a", "b"], nullable: true });
    expect(warnings).toContain("#/properties/level/enum: enum of integer values turned into strings (Gemini enums are string-only)");
  });

  it("keeps only the formats Gemini supports and describes the others", () => {
    const { schema, warnings } = toGemini(fixture("formats"));
    const p = props(schema);
    expect(p["when"]).toEqual({ type: "string", format: "date-time" });
    expect(p["count"]).toEqual({ type: "integer", format: "int32" });
    expect(p["ratio"]).toEqual({ type: "number", format: "double" });
    expect(p["email"]).toEqual({ type: "string", description: "Contact address (format: email)" });
    expect(p["url"]).toEqual({ type: "string", description: "(format: uri)" });
    expect(p["weird"]).toEqual({ type: "integer", description: "(format: uint8)" });
    expect(warnings).toContain('#/properties/url/format: format "uri" is not supported by Gemini for string; moved to description');
  });

  it("moves unsupported keywords into the description with a warning each", () => {
    const { schema, warnings } = toGemini(fixture("conditionals"));
    expect(Object.keys(schema).sort()).toEqual(["description", "properties", "type"]);
    for (const k of ["if:", "then:", "else:", "dependentRequired:", "dependentSchemas:"]) expect(schema["description"]).toContain(k);
    expect(props(schema)["code"]!["description"]).toBe('(not: {"enum":["admin","root"]})');
    for (const k of ["if", "then", "else", "dependentRequired", "dependentSchemas"]) expect(warnings).toContain(`#/${k}: ${k} is not supported by Gemini; moved to description`);
  });

  it("describes maps and drops closed-object markers", () => {
    const { schema, warnings } = toGemini(fixture("additional-props"));
    expect(props(schema)["env"]).toEqual({ type: "object", description: 'Environment variables (additional properties: {"type":"string"})' });
    expect(props(schema)["closed"]).toEqual({ type: "object", properties: { a: { type: "string" } } });
    expect(warnings).toContain("#/additionalProperties: additionalProperties: false dropped (not supported by Gemini)");
  });

  it("drops required entries that are not properties", () => {
    const { schema, warnings } = toGemini(fixture("required-mismatch"));
    expect(schema["required"]).toEqual(["a"]);
    expect(props(schema)["inner"]).toEqual({ type: "object" });
    expect(warnings).toContain("#/required: entries without a property dropped: ghost");
  });

  it("inlines references and stops at recursion", () => {
    const { schema } = toGemini(fixture("ref-cycle-defs"));
    const root = props(schema)["root"]!;
    expect(root["description"]).toBe("A tree node");
    expect((root["properties"] as any).children.items).toEqual({ type: "object", description: "(recursive, same shape as: Node)" });
    expect(JSON.stringify(schema)).not.toContain("$ref");
  });

  it("merges allOf and turns oneOf into anyOf", () => {
    const allOf = props(toGemini(fixture("all-of")).schema);
    expect(allOf["bounded"]).toEqual({ type: "integer", minimum: 5, maximum: 10 });
    const oneOf = props(toGemini(fixture("one-of")).schema);
    expect(oneOf["target"]!["anyOf"]).toHaveLength(2);
    expect(oneOf["limit"]).toEqual({ type: "integer", nullable: true, default: null });
  });

  it("gives untyped values and arrays without items a permissive union", () => {
    const p = props(toGemini(fixture("untyped")).schema);
    expect(p["anything"]).toEqual({ anyOf: [{ type: "string" }, { type: "number" }, { type: "boolean" }, { type: "object" }], description: "(any JSON value)" });
    expect((p["list"]!["items"] as Record<string, unknown>)["anyOf"]).toHaveLength(4);
    expect(p["emptyProps"]).toEqual({ type: "object" });
  });

  it("drops properties that must be absent and says so", () => {
    const { schema, warnings } = toGemini(fixture("boolean-subschemas"));
    expect(Object.keys(props(schema))).toEqual(["allowed", "none", "any"]);
    expect(schema["description"]).toBe("(forbidden must not be given)");
    expect(warnings).toContain("#/properties/forbidden: property that must be absent dropped");
  });

  it("turns tuples into lists of their element types", () => {
    const p = props(toGemini(fixture("tuple")).schema);
    expect(p["pair"]).toEqual({
      type: "array",
      items: { anyOf: [{ type: "string" }, { type: "integer" }] },
      description: '(tuple: [{"type":"string"},{"type":"integer"}])',
    });
    expect(normalizeSchema(fixture("tuple"), "gemini")).toEqual(toGemini(fixture("tuple")));
  });
});
