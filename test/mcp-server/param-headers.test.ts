/** SEP-2243 `Mcp-Param-*` checks of the gateway's /mcp (src/gateway/mcp-server/param-headers.ts): the rules the e2e test does not reach. */
import { describe, expect, it } from "vitest";
import { headerDeclarations, paramHeaderMismatch } from "../../src/gateway/mcp-server/param-headers.ts";

const schema = {
  type: "object",
  properties: {
    count: { type: "integer", "x-mcp-header": "Count" },
    on: { type: "boolean", "x-mcp-header": "On" },
    where: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
    plain: { type: "string" },
  },
};

describe("x-mcp-header declarations", () => {
  it("are found through properties at any depth, and nowhere else", () => {
    expect(headerDeclarations(schema).map((d) => [d.path.join("."), d.header])).toEqual([
      ["count", "Count"],
      ["on", "On"],
      ["where.zone", "Zone"],
    ]);
    expect(headerDeclarations({ type: "object", "x-mcp-header": "Root" })).toEqual([]);
  });
});

describe("Mcp-Param-* headers against the arguments", () => {
  const declarations = headerDeclarations(schema);
  const check = (args: unknown, headers: Record<string, string>) => paramHeaderMismatch(declarations, args, new Headers(headers));

  it("match numbers by value, booleans in lowercase, nested arguments by path", () => {
    expect(check({ count: 42, on: false, where: { zone: "a" } }, { "Mcp-Param-Count": "42.0", "Mcp-Param-On": "false", "Mcp-Param-Zone": "a" })).toBeUndefined();
    expect(check({ count: 42 }, { "Mcp-Param-Count": "43" })).toMatch(/Mcp-Param-Count header decodes to "43" but the body carries count=42/);
    expect(check({ on: true }, { "Mcp-Param-On": "True" })).toMatch(/Mcp-Param-On/);
    expect(check({ where: { zone: "a" } }, {})).toMatch(/body carries where.zone="a" but the Mcp-Param-Zone header is absent/);
  });

  it("need no header for an absent or null argument (one sent anyway is ignored)", () => {
    expect(check({ count: null, plain: "x" }, { "Mcp-Param-Zone": "anything" })).toBeUndefined();
    expect(check(undefined, {})).toBeUndefined();
  });

  it("decode UTF-8 in the Base64 sentinel, and take a value that only looks like one literally", () => {
    const encoded = `=?base64?${Buffer.from("zürich ").toString("base64")}?=`;
    expect(check({ where: { zone: "zürich " } }, { "Mcp-Param-Zone": encoded })).toBeUndefined();
    expect(check({ where: { zone: "=?base64?abc" } }, { "Mcp-Param-Zone": "=?base64?abc" })).toBeUndefined();
    expect(check({ where: { zone: "x" } }, { "Mcp-Param-Zone": `=?base64?${Buffer.from([0xff, 0xfe]).toString("base64")}?=` })).toMatch(/invalid Base64/);
  });
});
