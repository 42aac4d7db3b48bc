import { describe, expect, it } from "vitest";
import { normalizeSchema, toOpenAIStrict } from "../../../src/core/schema/index.ts";
import { openaiStrictErrors } from "../../helpers/openai-strict-rules.ts";
import { captured, fixture } from "./corpus.ts";

const real = (name: string) => captured().find((e) => e.name === name)!.schema;
const props = (schema: Record<string, unknown>) => schema["properties"] as Record<string, Record<string, unknown>>;

describe("toOpenAIStrict", () => {
  it("makes optional properties required and nullable (filesystem read_file)", () => {
    const result = toOpenAIStrict(real("filesystem/read_file"));
    expect(result.schema).toEqual({
      type: "object",
      properties: {
        path: { type: "string" },
        tail: { type: ["number", "null"], description: "If provided, returns only the last N lines of the file" },
        head: { type: ["number", "null"], description: "If provided, returns only the first N lines of the file" },
      },
      required: ["path", "tail", "head"],
      additionalProperties: false,
    });
    expect(result.strict).toBe(true);
    expect(result.warnings).toEqual(["#: optional properties made required and nullable: tail, head"]);
  });

  it("closes nested objects in arrays (memory create_entities)", () => {
    const { schema, strict } = toOpenAIStrict(real("memory/create_entities"));
    const item = props(schema)["entities"]!["items"] as Record<string, unknown>;
    expect(item).toMatchObject({ type: "object", additionalProperties: false, required: ["name", "entityType", "observations"] });
    expect(strict).toBe(true);
  });

  it("moves unsupported formats and defaults into the description, with warnings (everything gzip-file-as-resource)", () => {
    const { schema, warnings } = toOpenAIStrict(real("everything/gzip-file-as-resource"));
    const data = props(schema)["data"]!;
    expect(data).not.toHaveProperty("format");
    expect(data).not.toHaveProperty("default");
    expect(data["description"]).toContain("(default: https://raw.githubusercontent.com/");
    expect(data["description"]).toContain("format: uri");
    expect(warnings).toContain('#/properties/data/format: format "uri" is not supported in strict mode; moved to description');
    expect(warnings).toContain("#/properties/data/default: default is not supported in strict mode; moved to description");
  });

  it("keeps the formats strict mode supports", () => {
    const p = props(toOpenAIStrict(fixture("formats")).schema);
    expect(p["email"]).toEqual({ type: "string", format: "email", description: "Contact address" });
    for (const k of ["when", "day", "id", "host"]) expect(p[k]!["format"]).toBeDefined();
    for (const k of ["path", "count", "ratio", "weird"]) expect(p[k]).not.toHaveProperty("format");
  });

  it("moves string lengths and other refused keywords into the description", () => {
    const { schema, warnings } = toOpenAIStrict(fixture("constraints"));
    expect(props(schema)["name"]).toEqual({ type: "string", pattern: "^[a-z]+$", description: '(minLength: 1; maxLength: 40; examples: ["bob"])' });
    expect(props(schema)["age"]).toMatchObject({ exclusiveMinimum: 0, maximum: 150, multipleOf: 1 });
    expect(warnings).toContain("#/properties/name/minLength: minLength is not supported in strict mode; moved to description");
  });

  it("turns oneOf into anyOf and merges allOf", () => {
    const oneOf = toOpenAIStrict(fixture("one-of"));
    expect(JSON.stringify(oneOf.schema)).not.toContain("oneOf");
    expect(oneOf.warnings).toContain("#/properties/target/oneOf: oneOf turned into anyOf ('oneOf' is not permitted in strict mode)");
    const allOf = toOpenAIStrict(fixture("all-of"));
    expect(props(allOf.schema)["item"]).toMatchObject({ properties: { price: { type: "number", minimum: 1, maximum: 100 } } });
    expect(JSON.stringify(allOf.schema)).not.toContain("allOf");
  });

  it("wraps optional enums in an anyOf with null, so null is really accepted", () => {
    const p = props(toOpenAIStrict(fixture("enums")).schema);
    expect(p["ratio"]).toEqual({ anyOf: [{ type: "number", enum: [0.5, 1, 1.5] }, { type: "null" }] });
    expect(p["nullable"]).toEqual({ type: ["string", "null"], enum: ["a", "b", null] });
    expect(p["level"]).toEqual({ type: "integer", enum: [1, 2, 3], minimum: 1, description: "(default: 2)" });
  });

  it.each(["additional-props", "untyped", "ref-cycle-defs", "ref-dangling"])("says %s cannot be strict, and why", (name) => {
    const result = toOpenAIStrict(fixture(name));
    expect(result.strict).toBe(false);
    expect(result.warnings.join("\n")).toMatch(/cannot be strict|placeholder|cannot be resolved/);
    expect(openaiStrictErrors(result.schema)).toEqual([]);
  });

  it("tells what a map's values were, though it must close the object", () => {
    const env = props(toOpenAIStrict(fixture("additional-props")).schema)["env"]!;
    expect(env["description"]).toBe('Environment variables (additional properties: {"type":"string"})');
  });

  it("applies the nesting limit, configurable", () => {
    const deep = fixture("deep-nesting");
    const conservative = toOpenAIStrict(deep);
    expect(conservative.strict).toBe(false);
    expect(conservative.warnings).toContain("#: 8 levels of object nesting exceed the limit of 5; the schema cannot be strict");
    expect(toOpenAIStrict(deep, { limits: { maxDepth: 10 } }).strict).toBe(true);
    expect(normalizeSchema(deep, "openai-strict", { strict: { limits: { maxDepth: 10 } } }).strict).toBe(true);
  });

  it("applies the property and enum limits", () => {
    const wide = { type: "object", properties: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`p${i}`, { type: "string" }])) };
    expect(toOpenAIStrict(wide).strict).toBe(false);
    expect(toOpenAIStrict(wide, { limits: { maxProperties: 5000 } }).strict).toBe(true);
    const bigEnum = { type: "object", properties: { e: { type: "string", enum: Array.from({ length: 501 }, (_, i) => `v${i}`) } }, required: ["e"] };
    expect(toOpenAIStrict(bigEnum).warnings.join()).toContain("501 enum values exceed the limit of 500");
  });

  it("does not add null to what already accepts it", () => {
    const { schema } = toOpenAIStrict(fixture("nested-anyof"));
    expect(props(schema)["maybe"]).toEqual({ anyOf: [{ type: "string", format: "email" }, { type: "null" }] });
  });
});
