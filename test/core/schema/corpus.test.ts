/**
 * Every corpus schema (hand-written tricky ones and the real schemas of the reference MCP
 * servers) through every target: the output must be what the provider accepts, the input
 * must stay untouched, and the same input must give the same output.
 */
import { describe, expect, it } from "vitest";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DEFAULT_STRICT_LIMITS, normalizeSchema, type SchemaTarget } from "../../../src/core/schema/index.ts";
import { geminiSchemaErrors } from "../../helpers/gemini-schema-rules.ts";
import { openaiStrictErrors } from "../../helpers/openai-strict-rules.ts";
import { captured, corpus, handwritten } from "./corpus.ts";
import { deepFreeze } from "./freeze.ts";

const TARGETS: SchemaTarget[] = ["openai", "openai-strict", "anthropic", "gemini"];
const entries = corpus();

/** Paths of array schemas without an `items` schema object: OpenAI refuses them (strict or not). */
function arraysWithoutItems(node: unknown, path = "#"): string[] {
  if (node === null || typeof node !== "object") return [];
  if (Array.isArray(node)) return node.flatMap((child, i) => arraysWithoutItems(child, `${path}/${i}`));
  const record = node as Record<string, unknown>;
  const types = Array.isArray(record["type"]) ? record["type"] : [record["type"]];
  const own = types.includes("array") && (record["items"] === null || typeof record["items"] !== "object" || Array.isArray(record["items"])) ? [path] : [];
  return [...own, ...Object.entries(record).flatMap(([key, child]) => (key === "enum" || key === "const" || key === "default" || key === "examples" ? [] : arraysWithoutItems(child, `${path}/${key}`)))];
}

describe("schema corpus", () => {
  it("holds the real servers' schemas and the hand-written ones", () => {
    const servers = new Set(captured().map((e) => e.name.split("/")[0]));
    expect([...servers].sort()).toEqual(["everything", "filesystem", "memory"]);
    expect(captured().length).toBeGreaterThanOrEqual(30);
    expect(handwritten().length).toBeGreaterThanOrEqual(25);
  });

  describe.each(entries.map((e) => [e.name, e.schema] as const))("%s", (_name, schema) => {
    it("passes Gemini's rules", () => {
      expect(geminiSchemaErrors(normalizeSchema(schema, "gemini").schema)).toEqual([]);
    });

    it("passes OpenAI strict mode's rules (and its size limits when marked strict)", () => {
      const result = normalizeSchema(schema, "openai-strict");
      expect(openaiStrictErrors(result.schema)).toEqual([]);
      if (result.strict) expect(openaiStrictErrors(result.schema, DEFAULT_STRICT_LIMITS)).toEqual([]);
      else expect(result.warnings.some((w) => /cannot be strict|placeholder|cannot be resolved/.test(w))).toBe(true);
    });

    it.each(["openai", "anthropic"] as const)("has an object root without top-level unions for %s", (target) => {
      const out = normalizeSchema(schema, target).schema;
      expect(out["type"]).toBe("object");
      for (const key of ["anyOf", "oneOf", "allOf"]) expect(out).not.toHaveProperty(key);
    });

    it.each(["openai", "openai-strict"] as const)("gives every array an items schema for %s (OpenAI: 'array schema missing items')", (target) => {
      expect(arraysWithoutItems(normalizeSchema(schema, target).schema)).toEqual([]);
    });

    it("is valid draft 2020-12 for anthropic", () => {
      const ajv = new Ajv2020({ strict: false, validateFormats: false });
      const out = normalizeSchema(schema, "anthropic").schema;
      expect(ajv.validateSchema(out), JSON.stringify(ajv.errors)).toBe(true);
      expect(() => ajv.compile(out)).not.toThrow();
    });

    it.each(TARGETS)("changes nothing the second time for %s", (target) => {
      const once = normalizeSchema(schema, target).schema;
      expect(normalizeSchema(once, target).schema).toEqual(once);
    });

    it.each(TARGETS)("leaves the input alone and is deterministic for %s", (target) => {
      const frozen = deepFreeze(structuredClone(schema));
      const first = normalizeSchema(frozen, target);
      expect(frozen).toEqual(schema);
      expect(normalizeSchema(structuredClone(schema), target)).toEqual(first);
      for (const w of first.warnings) expect(w).toMatch(/^#(\/[^:]*)?: \S/);
    });
  });
});
