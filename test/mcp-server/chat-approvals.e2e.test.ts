/**
 * The `chat` tool under the loop plan: a call the tool policy wants approved (server-filesystem's
 * write_file, destructiveHint) is put to the MCP client's user as a form elicitation — accepted
 * it runs, declined it does not and the model reads why, and a client that cannot be asked gets
 * the refusal; the alias's own maxIterations holds for the chat tool too.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { connectHttp, everythingServer, startMcpGateway, textOf, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { serverBin, tempDir } from "../helpers/mcp-servers.ts";

let upstream: ScriptedUpstream;
let gw: McpGateway;
const dir = tempDir("chat-approvals-");
const clients: HttpClient[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer(), files: { command: process.execPath, args: [serverBin("filesystem"), dir.path] } },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    models: { default: { model: "fake/gpt-test" }, brief: { model: "fake/gpt-test", maxIterations: 2 } },
    gateway: { toolPolicy: { approve: { annotations: ["destructiveHint"] } } },
  });
}, 60_000);

afterAll(async () => {
  for (const http of clients) {
    await http.transport.terminateSession();
    await http.client.close();
  }
  await gw?.close();
  await upstream?.close();
  dir.remove();
});

/** A client whose user answers every elicitation with `answer` (and records what it was asked). */
async function clientAnswering(answer: { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> } | undefined, asked: ElicitRequest["params"][] = []): Promise<HttpClient> {
  const http = await connectHttp(gw.mcpUrl, answer ? { capabilities: { elicitation: { form: {} } } } : {}, (client) => {
    if (!answer) return;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return answer;
    });
  });
  clients.push(http);
  return http;
}

const write = (file: string) => ({ id: "c_write", name: "files__write_file", arguments: { path: join(dir.path, file), content: "from chat" } });
const toolMessage = (i: number) => String((upstream.chatRequests()[i]!.body.messages as { role: string; content: unknown }[]).find((m) => m.role === "tool")?.content);

describe("approvals through the chat tool", () => {
  it("asks the client's user with a form elicitation; accepted, the call runs", async () => {
    const asked: ElicitRequest["params"][] = [];
    const http = await clientAnswering({ action: "accept", content: { approve: true } }, asked);
    upstream.script([{ calls: [write("yes.txt")] }, { text: "Written." }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "write it" } });
    expect(textOf(result)).toBe("Written.");
    expect(readFileSync(join(dir.path, "yes.txt"), "utf8")).toBe("from chat");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toContain('"files__write_file"');
    expect(asked[0]!.message).toContain("yes.txt");
    expect(asked[0]).toMatchObject({ requestedSchema: { properties: { approve: { type: "boolean" } }, required: ["approve"] } });
  });

  it("declined, the call does not run and the model reads that the user did not approve it", async () => {
    const http = await clientAnswering({ action: "decline" });
    upstream.script([{ calls: [write("no.txt")] }, { text: "Not written." }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "write it" } });
    expect(textOf(result)).toBe("Not written.");
    expect(existsSync(join(dir.path, "no.txt"))).toBe(false);
    expect(toolMessage(1)).toContain("the user did not approve this call");
    expect(result.structuredContent).toMatchObject({ toolCalls: [{ name: "files__write_file", isError: true }] });
  });

  it("a client that cannot be asked: not run, and the model is told a person must approve it", async () => {
    const http = await clientAnswering(undefined);
    upstream.script([{ calls: [write("unasked.txt")] }, { text: "Needs approval." }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "write it" } });
    expect(textOf(result)).toBe("Needs approval.");
    expect(existsSync(join(dir.path, "unasked.txt"))).toBe(false);
    expect(toolMessage(1)).toContain("a person must approve it");
  });

  it("a tool the policy does not hold runs without asking; the alias's maxIterations holds", async () => {
    const asked: ElicitRequest["params"][] = [];
    const http = await clientAnswering({ action: "accept", content: { approve: true } }, asked);
    upstream.script([{ calls: [{ id: "c1", name: "everything__echo", arguments: { message: "a" } }] }, { calls: [{ id: "c2", name: "everything__echo", arguments: { message: "b" } }] }, { text: "never" }]);
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "echo", model: "brief" } });
    expect(asked).toEqual([]);
    expect(toolMessage(1)).toContain("Echo: a");
    expect(result.structuredContent).toMatchObject({ stopReason: "max_iterations", turns: 2, toolCalls: [{ name: "everything__echo", isError: false }] });
    expect(upstream.chatRequests()).toHaveLength(2);
  });
});
