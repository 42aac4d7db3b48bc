import { describe, expect, it } from "vitest";
import { retargetTools } from "../../src/gateway/routing/resilient-model.ts";
import { MemoryTools } from "../helpers/scripted-model.ts";
import type { SchemaTarget, ToolDefinition } from "../../src/core/index.ts";

/** A tool set whose definitions differ per dialect and are cached (stable identity). */
class DialectTools extends MemoryTools {
  private readonly cache = new Map<SchemaTarget, ToolDefinition[]>();
  override definitions(target: SchemaTarget): ToolDefinition[] {
    if (!this.cache.has(target)) this.cache.set(target, [{ name: "lookup", description: target, inputSchema: { type: "object" } }]);
    return this.cache.get(target)!;
  }
}

describe("retargetTools (fallback to another schema dialect)", () => {
  it("swaps the gateway's own definitions and leaves a same-named client tool alone", () => {
    const tools = new DialectTools({ lookup: () => "" });
    const client: ToolDefinition = { name: "lookup", description: "client's", inputSchema: { type: "object", properties: { q: { type: "string" } } } };
    const out = retargetTools([...tools.definitions("openai"), client], tools, "openai", "anthropic");
    expect(out.map((t) => t.description)).toEqual(["anthropic", "client's"]);
    expect(retargetTools([client], tools, "openai", "openai")[0]).toBe(client);
  });

  it("swaps a deferred copy of the gateway's own (Anthropic's tool search) for the other dialect's definition, sent in full", () => {
    const tools = new DialectTools({ lookup: () => "" });
    const deferred: ToolDefinition = { ...tools.definitions("anthropic")[0]!, deferLoading: true };
    const [out] = retargetTools([deferred], tools, "anthropic", "openai");
    expect(out).toBe(tools.definitions("openai")[0]);
    expect(out!.deferLoading).toBeUndefined();
  });
});
