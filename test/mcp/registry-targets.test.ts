/** The registry's per-target schemas and the way back from them to the tool's own arguments. */
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ToolRegistry, type ToolCaller } from "../../src/mcp/registry/registry.ts";
import type { ToolCallBlock } from "../../src/core/index.ts";

const schema = {
  type: "object",
  properties: {
    city: { type: "string" },
    days: { type: "integer", enum: [1, 3, 7] },
    units: { type: "string", enum: ["c", "f"] },
  },
  required: ["city"],
  additionalProperties: false,
};

function registry(received: Record<string, unknown>[]) {
  const caller: ToolCaller = async (_server, _tool, args) => {
    received.push(args);
    return { content: [{ type: "text", text: "ok" }] } satisfies CallToolResult;
  };
  return new ToolRegistry(1, [
    { name: "w__forecast", server: "w", tool: { name: "forecast", inputSchema: schema as never } },
    { name: "w__free", server: "w", tool: { name: "free", inputSchema: { type: "object", properties: { data: { type: "object" } } } } },
  ], caller);
}

const call = (name: string, args: Record<string, unknown>): ToolCallBlock => ({ type: "tool_call", id: "c1", name, arguments: args, rawArguments: JSON.stringify(args) });

describe("registry targets", () => {
  it("sends strict only for tools strict mode can express; the rest go out with strict: false", () => {
    const defs = registry([]).definitions("openai-strict");
    expect(defs.find((d) => d.name === "w__forecast")!.strict).toBe(true);
    expect(defs.find((d) => d.name === "w__free")!.strict).toBe(false);
    expect(registry([]).normalized("openai-strict").warnings.some((w) => w.tool === "w__free" && w.warning.includes("strict: false"))).toBe(true);
  });

  it("restores strict-mode nulls and Gemini's stringified enums before validating and calling", async () => {
    const received: Record<string, unknown>[] = [];
    const result = await registry(received).call(call("w__forecast", { city: "Oslo", days: "3", units: null }), {});
    expect(result.isError).toBe(false);
    expect(received).toEqual([{ city: "Oslo", days: 3 }]);
  });

  it("still refuses arguments that are wrong after restoring", async () => {
    const received: Record<string, unknown>[] = [];
    const result = await registry(received).call(call("w__forecast", { city: "Oslo", days: "4" }), {});
    expect(result.isError).toBe(true);
    expect(received).toEqual([]);
  });

  it("computes each target's schemas once per registry version", () => {
    const r = registry([]);
    expect(r.definitions("gemini")).toBe(r.definitions("gemini"));
    expect(r.select(["w"]).definitions("anthropic")[0]).toBe(r.definitions("anthropic")[0]);
  });
});

describe("argument validation dialects", () => {
  it("validates JSON Schema 2020-12 tool schemas instead of silently skipping them", async () => {
    const received: Record<string, unknown>[] = [];
    const caller: ToolCaller = async (_s, _t, args) => {
      received.push(args);
      return { content: [] };
    };
    const modern = new ToolRegistry(1, [
      { name: "m__t", server: "m", tool: { name: "t", inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { n: { type: "number" } }, required: ["n"] } as never } },
    ], caller);
    expect((await modern.call(call("m__t", { n: "x" }), {})).isError).toBe(true);
    expect((await modern.call(call("m__t", { n: 1 }), {})).isError).toBe(false);
    expect(received).toEqual([{ n: 1 }]);
  });
});
