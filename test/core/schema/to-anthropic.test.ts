import { describe, expect, it } from "vitest";
import { normalizeSchema, toAnthropic } from "../../../src/core/schema/index.ts";
import { captured, fixture } from "./corpus.ts";

describe("toAnthropic", () => {
  it("gives an empty schema the required root type", () => {
    expect(toAnthropic({}).schema).toEqual({ type: "object", properties: {} });
    expect(toAnthropic(undefined).schema).toEqual({ type: "object", properties: {} });
  });

  it("keeps a real server schema as it is, minus the draft-07 $schema", () => {
    const readFile = captured().find((e) => e.name === "filesystem/read_file");
    const { $schema, ...rest } = readFile!.schema;
    expect($schema).toContain("draft-07");
    expect(toAnthropic(readFile!.schema)).toEqual({ schema: rest, warnings: [] });
  });

  it("rewrites draft-07 tuples and draft-04 exclusive bounds into 2020-12", () => {
    const tuple = toAnthropic(fixture("tuple"));
    expect((tuple.schema["properties"] as any).point).toEqual({ type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false });
    expect(tuple.warnings).toContain("#/properties/point: tuple items rewritten as prefixItems");
    const age = (toAnthropic(fixture("constraints")).schema["properties"] as any).age;
    expect(age).toMatchObject({ exclusiveMinimum: 0, maximum: 150 });
    expect(age).not.toHaveProperty("minimum");
  });

  it("splits draft-07 dependencies", () => {
    const { schema } = toAnthropic(fixture("conditionals"));
    expect(schema["dependentRequired"]).toEqual({ card: ["billing"], billing: ["card"] });
    expect(schema["dependentSchemas"]).toEqual({ postcode: { required: ["country"] } });
    expect(schema).not.toHaveProperty("dependencies");
  });

  it("merges top-level unions but keeps nested ones", () => {
    const root = toAnthropic(fixture("top-level-anyof")).schema;
    expect(root).not.toHaveProperty("anyOf");
    expect(root["type"]).toBe("object");
    const nested = toAnthropic(fixture("one-of")).schema;
    expect((nested["properties"] as any).target.oneOf).toHaveLength(2);
    expect(normalizeSchema(fixture("one-of"), "anthropic")).toEqual(toAnthropic(fixture("one-of")));
  });
});
