/**
 * The `chat` tool's limits: a run ends at `gateway.requestTimeoutMs` with a clear error result
 * (its pending tool call cancelled), and `mcpServers` may narrow an alias's own server selection
 * but never widen it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { connectHttp, everythingServer, fixtureServer, startMcpGateway, textOf, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";

let upstream: ScriptedUpstream;
let gw: McpGateway;
let http: HttpClient;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer(), fixture: fixtureServer() },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    models: { narrow: { model: "fake/narrow-model", mcpServers: ["everything"] } },
    gateway: { requestTimeoutMs: 1_500 },
  });
  http = await connectHttp(gw.mcpUrl);
});

afterAll(async () => {
  await http?.transport.terminateSession();
  await http?.client.close();
  await gw?.close();
  await upstream?.close();
});

describe("the chat tool", () => {
  it("ends a run that outlives gateway.requestTimeoutMs with an error result", async () => {
    // The model calls a tool that only returns once it is cancelled.
    upstream.script([{ calls: [{ id: "call_1", name: "fixture__probe_wait_for_cancel", arguments: {} }] }, { text: "too late" }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "wait", model: "fake/m" } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("Error: The chat run took longer than 1500 ms (gateway.requestTimeoutMs)");
  });

  it("refuses mcpServers outside the alias's own selection, naming them", async () => {
    upstream.script([{ text: "should not be asked" }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "hi", model: "narrow", mcpServers: ["everything", "fixture"] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('MCP servers outside the selection of model "narrow": fixture (allowed: everything)');
    expect(upstream.chatRequests()).toEqual([]);
  });

  it("narrows an alias's selection with mcpServers inside it", async () => {
    upstream.script([{ text: "narrowed" }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "hi", model: "narrow", mcpServers: [] } });
    expect(textOf(result)).toBe("narrowed");
    expect(upstream.chatRequests()[0]!.body.tools ?? []).toEqual([]);
    upstream.script([{ text: "alias default" }]);
    await http.client.callTool({ name: "chat", arguments: { prompt: "hi", model: "narrow" } });
    const names = (upstream.chatRequests()[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((n) => n.startsWith("everything__"))).toBe(true);
  });
});
