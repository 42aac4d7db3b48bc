/** A request's loop options from its body and its x-mcp-gateway-* headers (src/gateway/shared/loop-options.ts). */
import { describe, expect, it } from "vitest";
import { takeLoopOptions } from "../../src/gateway/shared/loop-options.ts";

const headers = (given: Record<string, string>) => (name: string) => given[name];

describe("takeLoopOptions", () => {
  it("gives no options for a request that asks for none", () => {
    expect(takeLoopOptions({ model: "m" }, headers({}))).toEqual({});
  });

  it("reads the deny list from the header alone, from the body alone, and joins both", () => {
    expect(takeLoopOptions({}, headers({ "x-mcp-gateway-tools-deny": "a__x, b__*" }))).toEqual({ tools: { deny: ["a__x", "b__*"] } });
    expect(takeLoopOptions({ mcp_gateway: { tools: { deny: ["c__y"] } } }, headers({}))).toEqual({ tools: { deny: ["c__y"] } });
    expect(takeLoopOptions({ mcp_gateway: { tools: { deny: ["c__y"] } } }, headers({ "x-mcp-gateway-tools-deny": "a__x" }))).toEqual({ tools: { deny: ["c__y", "a__x"] } });
    // An empty header denies nothing.
    expect(takeLoopOptions({}, headers({ "x-mcp-gateway-tools-deny": " , " }))).toEqual({});
  });

  it("takes mcp_gateway out of the body, and keeps an allow list beside the deny list", () => {
    const body: Record<string, unknown> = { model: "m", mcp_gateway: { tools: { allow: ["a__*"] } } };
    expect(takeLoopOptions(body, headers({ "x-mcp-gateway-tools-deny": "a__x" }))).toEqual({ tools: { allow: ["a__*"], deny: ["a__x"] } });
    expect(body).toEqual({ model: "m" });
  });
});
