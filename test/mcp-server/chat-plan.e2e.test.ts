/**
 * Plan mode through the MCP `chat` tool (MCP SDK client over Streamable HTTP, scripted OpenAI
 * upstream, server-everything): the plan put to the user as an elicitation, which edits it; each
 * status change as a progress notification, in order, through a failed step and its re-plan; the
 * plan in the structured result. A declined plan runs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema, type ElicitRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { connectHttp, everythingServer, startMcpGateway, textOf, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";

type Json = any;
const plan = (...titles: string[]) => ({ text: JSON.stringify({ steps: titles.map((title) => ({ title, instruction: `do ${title}` })) }) });

let upstream: ScriptedUpstream;
let gw: McpGateway;
let http: HttpClient;
let answer: (request: ElicitRequest) => Json = () => ({ action: "decline" });
const asked: ElicitRequest[] = [];
const progress: string[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer() },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    models: { default: { model: "fake/m" } },
  });
  // tap: every progress notification, in order, even one in the same read as the result.
  const tap = (message: JSONRPCMessage) => {
    if ("method" in message && message.method === "notifications/progress") progress.push(String((message.params as Json).message));
  };
  http = await connectHttp(gw.mcpUrl, { capabilities: { elicitation: {} }, tap }, (client) => {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request);
      return answer(request);
    });
  });
});

afterAll(async () => {
  await http?.transport.terminateSession();
  await http?.client.close();
  await gw?.close();
  await upstream?.close();
});

describe("plan mode through chat", () => {
  it("lets the user edit the plan, reports each status, re-plans once after a failure", async () => {
    upstream.script([
      plan("A", "B", "C"),
      { calls: [{ id: "call_a", name: "everything__echo", arguments: { message: "a" } }] },
      { text: "A gave Echo: a" },
      { text: "STEP FAILED: B is not possible" },
      plan("B2"),
      { text: "B2 done" },
      { text: "All done." },
    ]);
    asked.length = 0;
    progress.length = 0;
    // The user drops step C.
    answer = () => ({ action: "accept", content: { approve: true, steps: "1. A\n2. B" } });
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "do the task", mode: "plan" } }, undefined, { onprogress: () => undefined });
    expect(textOf(result)).toBe("All done.");
    expect(asked).toHaveLength(1);
    expect(asked[0]!.params.message).toContain("1. A\n2. B\n3. C");
    expect((asked[0]!.params as Json).requestedSchema.properties.steps.default).toBe("1. A\n2. B\n3. C");
    const plans = progress.filter((m) => m.startsWith("plan: "));
    expect(plans).toEqual([
      "plan: 1. A [pending]; 2. B [pending]",
      "plan: 1. A [running]; 2. B [pending]",
      "plan: 1. A [done]; 2. B [pending]",
      "plan: 1. A [done]; 2. B [running]",
      "plan: 1. A [done]; 2. B [failed]",
      "plan: 1. A [done]; 2. B [failed]; 3. B2 [pending]",
      "plan: 1. A [done]; 2. B [failed]; 3. B2 [running]",
      "plan: 1. A [done]; 2. B [failed]; 3. B2 [done]",
    ]);
    // The step's tool call shows among them, between A running and A done.
    const running = progress.indexOf("plan: 1. A [running]; 2. B [pending]");
    const tool = progress.findIndex((m) => m.includes("running tool everything__echo"));
    expect(tool).toBeGreaterThan(running);
    expect(tool).toBeLessThan(progress.indexOf("plan: 1. A [done]; 2. B [pending]"));
    const structured = result.structuredContent as Json;
    expect(structured.plan.replanned).toBe(true);
    expect(structured.plan.steps.map((s: Json) => [s.title, s.status, s.result])).toEqual([
      ["A", "done", "A gave Echo: a"],
      ["B", "failed", "B is not possible"],
      ["B2", "done", "B2 done"],
    ]);
    expect(structured.toolCalls).toEqual([{ name: "everything__echo", durationMs: expect.any(Number), isError: false }]);
    // The edited plan is what the steps were told.
    expect(JSON.stringify(upstream.chatRequests()[1]!.body.messages.at(-1))).not.toContain("do C");
  });

  it("runs nothing when the user declines the plan", async () => {
    upstream.script([plan("A", "B"), { text: "should not be asked" }]);
    answer = () => ({ action: "decline" });
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "do the task", mode: "plan" } });
    expect(textOf(result)).toBe("The plan was declined: nothing was run.");
    expect((result.structuredContent as Json).stopReason).toBe("cancelled");
    expect(upstream.chatRequests()).toHaveLength(1);
  });
});
