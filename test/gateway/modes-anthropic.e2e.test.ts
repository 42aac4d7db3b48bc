/**
 * Plan mode and steering against an Anthropic upstream that refuses what the Messages API
 * refuses (test/helpers/anthropic-rules.ts: roles alternating, every tool_use answered by a
 * tool_result right after it, …): the extra user turns plan mode and steering add must reach it
 * in a shape it accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startFakeAnthropic, replyWith } from "../helpers/anthropic-rules.ts";
import type { FakeUpstream, Handler } from "../helpers/fake-upstream.ts";
import { connectHttp, everythingServer, startMcpGateway, textOf, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";

type Json = any;
const message = (content: Json[]) => ({
  id: "msg_x",
  type: "message",
  role: "assistant",
  model: "claude-test",
  content,
  stop_reason: content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 5 },
});
const text = (value: string) => message([{ type: "text", text: value }]);
const toolUse = (...calls: [string, string, Json][]) => message(calls.map(([id, name, input]) => ({ type: "tool_use", id, name, input })));

let upstream: FakeUpstream;
let replies: Json[] = [];
let index = 0;
let gw: McpGateway;
let http: HttpClient;
let onElicit: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const respond: Handler = (req, res) => replyWith(replies[Math.min(index++, replies.length - 1)])(req, res);
  upstream = await startFakeAnthropic(respond);
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer() },
    providers: { ant: { type: "anthropic", baseURL: upstream.url, apiKey: "sk-ant" } },
    models: { default: { model: "ant/claude-test" } },
  });
  http = await connectHttp(gw.mcpUrl, { capabilities: { elicitation: {} } }, (client) => {
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await onElicit();
      return { action: "accept", content: { name: "Ada", check: true, email: "ada@example.com" } };
    });
  });
});

afterAll(async () => {
  await http?.transport.terminateSession();
  await http?.client.close();
  await gw?.close();
  await upstream?.close();
});

/** Replaces the script; the requests are counted from the start. */
function script(...next: Json[]) {
  replies = next;
  index = 0;
  upstream.requests.length = 0;
}

/** The loop went through every scripted answer: no request broke the API's rules (a 400 ends it). */
function expectAllAccepted(count: number) {
  expect(upstream.requests).toHaveLength(count);
}

describe("modes against Anthropic's rules", () => {
  it("plan mode: the plan, a step with a tool call, a failed step, a re-plan and the summary", async () => {
    script(
      text(JSON.stringify({ steps: [{ title: "A", instruction: "echo a" }, { title: "B", instruction: "b" }] })),
      toolUse(["toolu_1", "everything__echo", { message: "a" }]),
      text("A gave Echo: a"),
      text("STEP FAILED: no B"),
      text(JSON.stringify({ steps: [{ title: "B2", instruction: "b2" }] })),
      text("B2 done"),
      text("Summary."),
    );
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "default", stream: true, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "do it" }], mcp_gateway: { mode: "plan" } }),
    });
    const body = await response.text();
    expect(body).not.toContain('"error"');
    expect(body).toContain("Summary.");
    expectAllAccepted(7);
    // The plan's structured output, as Anthropic takes it (no response_format field of OpenAI's).
    expect(upstream.requests[0]!.body.response_format).toBeUndefined();
  });

  it("steering: the skipped call's result and the user's message in one user turn", async () => {
    script(toolUse(["toolu_ask", "everything__trigger-elicitation-request", {}], ["toolu_echo", "everything__echo", { message: "x" }]), text("Bien."));
    onElicit = async () => {
      await http.client.callTool({ name: "steer", arguments: { conversation: "ant-steer", message: "In French." } });
    };
    const result = await http.client.callTool({ name: "chat", arguments: { prompt: "go", conversation: "ant-steer" } });
    onElicit = async () => undefined;
    expect(textOf(result)).toBe("Bien.");
    expectAllAccepted(2);
    const last = upstream.requests[1]!.body.messages.at(-1);
    expect(last.role).toBe("user");
    expect(last.content.map((b: Json) => b.type)).toEqual(["tool_result", "tool_result", "text"]);
    expect(last.content.at(-1).text).toBe("In French.");
  });
});
