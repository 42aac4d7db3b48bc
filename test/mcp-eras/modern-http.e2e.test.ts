/**
 * The gateway's /mcp for 2026-07-28 clients: a real SDK 2.x Client pinned to the new era, beside
 * a 2025-11-25 session on the same endpoint, with server-everything upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { connectHttp, everythingServer, startMcpGateway, textOf, type McpGateway } from "../helpers/mcp-gateway-harness.ts";

let gateway: McpGateway;

beforeAll(async () => {
  gateway = await startMcpGateway({ mcpServers: { everything: everythingServer() } });
});

afterAll(async () => {
  await gateway?.close();
});

async function modernClient(capabilities: Record<string, unknown> = {}): Promise<Client> {
  const client = new Client({ name: "modern-test", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(gateway.mcpUrl));
  return client;
}

describe("a 2026-07-28 client on /mcp", () => {
  it("discovers the gateway and calls an upstream tool, with no session", async () => {
    const client = await modernClient();
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getDiscoverResult()?.supportedVersions).toContain("2026-07-28");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("everything__echo");
    const result = await client.callTool({ name: "everything__echo", arguments: { message: "hi" } });
    expect(textOf(result)).toContain("hi");
    expect(gateway.gateway.mcpHttp.sessionCount).toBe(0);
    await client.close();
  });

  it("sees the same tools as a 2025-11-25 session", async () => {
    const modern = await modernClient();
    const legacy = await connectHttp(gateway.mcpUrl);
    const a = (await modern.listTools()).tools.map((t) => t.name).sort();
    const b = (await legacy.client.listTools()).tools.map((t) => t.name).sort();
    expect(a).toEqual(b);
    await modern.close();
    await legacy.client.close();
  });

  it("relays an upstream elicitation as an InputRequiredResult and sends the answer back upstream", async () => {
    const client = await modernClient({ elicitation: { form: {} } });
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params);
      return { action: "accept", content: { name: "Ada", check: true, email: "ada@example.com" } };
    });
    const result = await client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} });
    expect(textOf(result)).toContain("- Name: Ada\n- Agreed to terms: true\n- Email: ada@example.com");
    expect(asked[0]).toMatchObject({ message: "Please provide inputs for the following fields:", requestedSchema: { required: ["name"] } });
    await client.close();
  });

  it("relays an upstream sampling request the same way", async () => {
    const client = await modernClient({ sampling: {} });
    client.setRequestHandler("sampling/createMessage", () => ({ role: "assistant", model: "client-model", content: { type: "text", text: "answer from the client" }, stopReason: "endTurn" }));
    const result = await client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "hello", maxTokens: 50 } });
    expect(textOf(result)).toContain("answer from the client");
    await client.close();
  });

  it("relays progress, and cancels the upstream call when the client aborts", async () => {
    const client = await modernClient();
    const progress: unknown[] = [];
    const done = await client.callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 0.2, steps: 4 } }, { onprogress: (p) => progress.push(p) });
    expect(textOf(done)).toContain("Long running operation completed");
    expect(progress).toEqual([1, 2, 3, 4].map((n) => ({ progress: n, total: 4 })));
    const controller = new AbortController();
    const call = client.callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 30, steps: 300 } }, { signal: controller.signal, onprogress: () => controller.abort() });
    await expect(call).rejects.toThrow();
    await client.close();
  });

  it("refuses a request whose Mcp-Method header does not match its body (-32020)", async () => {
    const response = await fetch(gateway.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "everything__echo" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" } } },
      }),
    });
    const body = (await response.json()) as { error?: { code: number } };
    expect(body.error?.code).toBe(-32020);
    expect(response.status).toBe(400);
  });

  it("refuses a body that is JSON but not a request (null, a number) with -32600, and keeps serving", async () => {
    for (const body of ["null", "1"]) {
      const response = await fetch(gateway.mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28" },
        body,
      });
      expect(response.status, body).toBe(400);
      expect(((await response.json()) as { error?: { code: number } }).error?.code, body).toBe(-32600);
    }
    const client = await modernClient();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
