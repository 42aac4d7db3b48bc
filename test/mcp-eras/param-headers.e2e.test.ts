/**
 * SEP-2243 `Mcp-Param-*` headers through /mcp (2026-07-28 Streamable HTTP): a tool of a
 * 2026-07-28 upstream whose input schema declares `x-mcp-header` (the SDK 2.x reference server's
 * `test_x_mcp_header`) can be called through the gateway by clients of both eras — the forwarded
 * call carries the header the upstream checks — and the gateway, which lists the declaration,
 * checks a 2026-07-28 client's headers against the arguments itself (400, -32020).
 */
import { describe, expect, it } from "vitest";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, textOf } from "../helpers/mcp-gateway-harness.ts";
import { useModernUpstream } from "./modern-upstream.ts";

const upstream = useModernUpstream();

async function modernClient(): Promise<ModernClient> {
  const client = new ModernClient({ name: "param-headers", version: "1.0.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new ModernTransport(upstream.gateway.mcpUrl));
  return client;
}

/** One raw 2026-07-28 tools/call of the gateway's test_x_mcp_header, with the given extra headers. */
async function rawCall(args: Record<string, unknown>, headers: Record<string, string>): Promise<{ status: number; body: { result?: unknown; error?: { code: number; message: string } } }> {
  const name = "modern__test_x_mcp_header";
  const response = await fetch(upstream.gateway.mcpUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": name,
      ...headers,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name,
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1.0.0" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  const text = await response.text();
  // A JSON answer, or one SSE event carrying it.
  const json = response.headers.get("content-type")?.includes("text/event-stream") ? /^data: (.*)$/m.exec(text)?.[1] ?? "{}" : text;
  return { status: response.status, body: JSON.parse(json) as { result?: unknown; error?: { code: number; message: string } } };
}

describe("a tool declaring x-mcp-header, of a 2026-07-28 upstream", () => {
  it("is listed with its declaration unchanged", async () => {
    const client = await modernClient();
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === "modern__test_x_mcp_header");
      expect((tool?.inputSchema.properties as Record<string, Record<string, unknown>> | undefined)?.region?.["x-mcp-header"]).toBe("Region");
    } finally {
      await client.close();
    }
  });

  it("is called by a 2026-07-28 client (the SDK sends Mcp-Param-Region; the gateway sets it upstream)", async () => {
    const client = await modernClient();
    try {
      await client.listTools();
      const result = await client.callTool({ name: "modern__test_x_mcp_header", arguments: { region: "eu" } });
      expect(result.isError).not.toBe(true);
      expect(textOf(result)).toBe("region=eu");
    } finally {
      await client.close();
    }
  });

  it("is called by a 2025-11-25 client (no headers of its own: the gateway sets them upstream)", async () => {
    const { client } = await connectHttp(upstream.gateway.mcpUrl);
    try {
      const result = await client.callTool({ name: "modern__test_x_mcp_header", arguments: { region: "eu west/ü" } }, CallToolResultSchema);
      expect(result.isError).not.toBe(true);
      expect(textOf(result)).toBe("region=eu west/ü");
    } finally {
      await client.close();
    }
  });

  it("with no value for the mirrored argument, needs no header", async () => {
    const { status, body } = await rawCall({ level: 2 }, {});
    expect(status).toBe(200);
    expect(textOf(body.result as object)).toBe("region=<none>");
  });

  it("accepts a matching header, plain or Base64-encoded", async () => {
    const plain = await rawCall({ region: "eu" }, { "mcp-param-region": "eu" });
    expect(plain.status).toBe(200);
    expect(textOf(plain.body.result as object)).toBe("region=eu");
    const encoded = await rawCall({ region: "Hello" }, { "Mcp-Param-Region": `=?base64?${Buffer.from("Hello").toString("base64")}?=` });
    expect(encoded.status).toBe(200);
    expect(textOf(encoded.body.result as object)).toBe("region=Hello");
  });

  it.each([
    ["missing", {}, /Mcp-Param-Region header is absent/],
    ["disagreeing", { "Mcp-Param-Region": "us" }, /Mcp-Param-Region header decodes to "us"/],
    ["with invalid Base64 padding", { "Mcp-Param-Region": "=?base64?SGVsbG8?=" }, /invalid Base64/],
    ["with invalid Base64 characters", { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" }, /invalid Base64/],
  ])("refuses a 2026-07-28 call whose header is %s (400, -32020)", async (_what, headers, message) => {
    const { status, body } = await rawCall({ region: "eu" }, headers);
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32020);
    expect(body.error?.message).toMatch(message);
  });
});
