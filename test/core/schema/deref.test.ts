import { describe, expect, it } from "vitest";
import { derefSchema, resolvePointer } from "../../../src/core/schema/deref.ts";
import { newContext } from "../../../src/core/schema/types.ts";
import { fixture } from "./corpus.ts";
import { deepFreeze } from "./freeze.ts";

function deref(schema: Record<string, unknown>, cycles: "keep" | "placeholder" = "placeholder", maxExpansions?: number) {
  const ctx = newContext();
  const out = derefSchema(deepFreeze(structuredClone(schema)), maxExpansions === undefined ? { cycles } : { cycles, maxExpansions }, ctx);
  return { out, ctx };
}

describe("resolvePointer", () => {
  it("follows escaped and percent-encoded segments and array indices", () => {
    const root = { $defs: { "a/b~c": { type: "string" }, "sp ace": { type: "integer" } }, anyOf: [{ type: "null" }] };
    expect(resolvePointer(root, "#/$defs/a~1b~0c")).toEqual({ type: "string" });
    expect(resolvePointer(root, "#/$defs/sp%20ace")).toEqual({ type: "integer" });
    expect(resolvePointer(root, "#/anyOf/0")).toEqual({ type: "null" });
    expect(resolvePointer(root, "#")).toBe(root);
    expect(resolvePointer(root, "#/$defs/nope")).toBeUndefined();
    expect(resolvePointer(root, "#anchor")).toBeUndefined();
  });
});

describe("derefSchema", () => {
  it("inlines shared definitions wherever they are used and drops the definitions", () => {
    const { out, ctx } = deref(fixture("ref-shared"));
    const props = out["properties"] as Record<string, Record<string, unknown>>;
    expect(props["home"]).toMatchObject({ type: "object", description: "Home address", required: ["street"] });
    expect(props["work"]).toMatchObject({ type: "object", required: ["street"] });
    expect(props["work"]).not.toHaveProperty("description");
    expect(props["escaped"]).toEqual({ type: "string", enum: ["x", "y"] });
    expect(props["alias"]).toMatchObject({ type: "object", description: "Home address" });
    expect(out).not.toHaveProperty("$defs");
    expect(JSON.stringify(out)).not.toContain("$ref");
    expect(ctx.warnings).toEqual([]);
  });

  it("replaces a recursive reference by a described placeholder of the same type", () => {
    const { out, ctx } = deref(fixture("ref-cycle-defs"));
    const children = (out["properties"] as any).root.properties.children as Record<string, unknown>;
    expect(children["items"]).toEqual({ type: "object", description: "(recursive, same shape as: Node)" });
    expect(ctx.warnings).toEqual(['#/properties/root/properties/children/items: recursive reference "#/$defs/Node" replaced by a placeholder']);
    expect(ctx.lossy).toBe(true);
  });

  it("survives a reference to the root and mutual recursion", () => {
    const root = deref(fixture("ref-cycle-root"));
    expect((root.out["properties"] as any).next.properties.next).toMatchObject({ type: "object", description: expect.stringContaining("recursive") });
    const mutual = deref(fixture("ref-cycle-mutual"));
    expect((mutual.out["properties"] as any).start.properties.b.properties.a.description).toContain("same shape as: A");
    expect(mutual.out).not.toHaveProperty("definitions");
  });

  it("keeps recursive references and their definitions when asked to", () => {
    const { out, ctx } = deref(fixture("ref-cycle-defs"), "keep");
    expect(out["properties"]).toEqual({ root: { $ref: "#/$defs/Node" } });
    expect(out["$defs"]).toEqual(fixture("ref-cycle-defs")["$defs"]);
    expect(ctx.warnings).toEqual([]);
    expect(ctx.lossy).toBe(false);
  });

  it("keeps only the recursive references, so a second pass changes nothing", () => {
    const { out } = deref(fixture("ref-cycle-root"), "keep");
    expect((out["properties"] as Record<string, unknown>)["next"]).toEqual({ $ref: "#" });
    const shared = { type: "object", $defs: { A: { type: "string" }, L: { type: "object", properties: { a: { $ref: "#/$defs/A" }, l: { $ref: "#/$defs/L" } } } }, properties: { x: { $ref: "#/$defs/A" }, y: { $ref: "#/$defs/L" } } };
    const once = deref(shared, "keep").out;
    expect(once["properties"]).toEqual({ x: { type: "string" }, y: { $ref: "#/$defs/L" } });
    expect(deref(once, "keep").out).toEqual(once);
  });

  it("warns about references it cannot resolve and keeps them readable", () => {
    const { out, ctx } = deref(fixture("ref-dangling"));
    const props = out["properties"] as Record<string, Record<string, unknown>>;
    expect(props["missing"]).toEqual({ description: "Points nowhere (reference: #/$defs/Nope)" });
    expect(props["remote"]?.["description"]).toContain("https://example.com/schemas/thing.json");
    expect(ctx.warnings).toHaveLength(3);
    expect(ctx.warnings[0]).toMatch(/^#\/properties\/missing: \$ref "#\/\$defs\/Nope" cannot be resolved/);
  });

  it("bounds the work on definitions that double at every level", () => {
    const $defs: Record<string, unknown> = { L20: { type: "string" } };
    for (let i = 0; i < 20; i++) $defs[`L${i}`] = { type: "object", properties: { a: { $ref: `#/$defs/L${i + 1}` }, b: { $ref: `#/$defs/L${i + 1}` } } };
    const started = Date.now();
    const { ctx } = deref({ type: "object", $defs, properties: { root: { $ref: "#/$defs/L0" } } }, "placeholder", 200);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(ctx.warnings.some((w) => w.includes("too many references to inline"))).toBe(true);
  });
});
