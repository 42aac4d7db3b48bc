import { describe, expect, it } from "vitest";
import { selectServers } from "../../src/gateway/shared/prepare.ts";
import type { ResolvedModel } from "../../src/gateway/routing/resolve-model.ts";

const model = (mcpServers?: string[]) => ({ requested: "m", ...(mcpServers ? { alias: { model: "p/m", mcpServers } } : {}) }) as unknown as ResolvedModel;
const known = ["a", "b", "c"];

describe("selectServers", () => {
  it("defaults to the alias's selection, else every server", () => {
    expect(selectServers(undefined, model(["a"]), known)).toEqual(["a"]);
    expect(selectServers(undefined, model(), known)).toBeUndefined();
  });
  it("narrows with the header, deduplicated; none means none", () => {
    expect(selectServers("b, b ,a", model(), known)).toEqual(["b", "a"]);
    expect(selectServers("none", model(["a"]), known)).toEqual([]);
  });
  it("refuses to widen an alias's selection, and unknown servers", () => {
    expect(() => selectServers("a,b", model(["a"]), known)).toThrow(/outside the model "m"'s selection: b/);
    expect(() => selectServers("zz", model(), known)).toThrow(/unknown MCP servers: zz/);
  });
});
