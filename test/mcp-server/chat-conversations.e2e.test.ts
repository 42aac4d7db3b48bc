/**
 * Conversations and steering through the MCP `chat` tool, with the MCP SDK client over
 * Streamable HTTP: a conversation continued over three calls from the store; a `steer` message
 * delivered between two tool calls of a running turn (the second call skipped and reported); a
 * follow-up delivered only when the agent would otherwise stop. The running turn is held in a
 * tool call that asks the client for input (server-everything's elicitation): the client steers
 * from inside its elicitation handler, so the message is queued while the first call runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { connectHttp, everythingServer, startMcpGateway, textOf, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { SKIPPED_FOR_STEERING } from "../../src/loop/index.ts";

type Json = any;
const ELICIT = "everything__trigger-elicitation-request";

let upstream: ScriptedUpstream;
let gw: McpGateway;
let http: HttpClient;
/** What the client does when the gateway asks it for input (the test sets it). */
let onElicit: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer() },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    models: { default: { model: "fake/m" }, briefed: { model: "fake/m", system: "Alias system." } },
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

const chat = (args: Record<string, unknown>, onprogress?: (p: { message?: string }) => void) =>
  http.client.callTool({ name: "chat", arguments: args }, undefined, onprogress ? { onprogress } : {});
const steer = (args: Record<string, unknown>) => http.client.callTool({ name: "steer", arguments: args });
const roles = (messages: Json[]) => messages.map((m) => m.role);

describe("chat conversations", () => {
  it("lists steer beside chat, with conversation in chat's input", async () => {
    const { tools } = await http.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain("steer");
    expect(Object.keys(tools.find((t) => t.name === "chat")!.inputSchema.properties!)).toContain("conversation");
  });

  it("continues a conversation over three calls from the store", async () => {
    upstream.script([
      { text: "Hello Ada." },
      { calls: [{ id: "call_echo", name: "everything__echo", arguments: { message: "blue" } }] },
      { text: "Echoed blue." },
      { text: "You asked me to echo blue." },
    ]);
    const first = await chat({ prompt: "I am Ada", system: "Be brief." });
    const id = (first.structuredContent as Json).conversation as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(textOf(first)).toBe("Hello Ada.");
    const second = await chat({ prompt: "echo blue", conversation: id });
    expect(textOf(second)).toBe("Echoed blue.");
    expect((second.structuredContent as Json).conversation).toBe(id);
    const third = await chat({ prompt: "what did I ask?", conversation: id });
    expect(textOf(third)).toBe("You asked me to echo blue.");
    const last = upstream.chatRequests()[3]!.body.messages as Json[];
    expect(roles(last)).toEqual(["system", "user", "assistant", "user", "assistant", "tool", "assistant", "user"]);
    expect(last[0].content).toBe("Be brief.");
    expect(last.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["I am Ada", "echo blue", "what did I ask?"]);
    expect(last[5]).toMatchObject({ tool_call_id: "call_echo", content: "Echo: blue" });
    // Another conversation starts empty.
    upstream.script([{ text: "new" }]);
    await chat({ prompt: "fresh", conversation: "another-one" });
    expect(roles(upstream.chatRequests()[0]!.body.messages)).toEqual(["user"]);
  });

  it("gives a new conversation the alias's system prompt, and a given one replaces it later", async () => {
    upstream.script([{ text: "one" }, { text: "two" }, { text: "three" }]);
    await chat({ prompt: "first", model: "briefed", conversation: "briefed-chat" });
    await chat({ prompt: "second", model: "briefed", conversation: "briefed-chat" });
    await chat({ prompt: "third", model: "briefed", conversation: "briefed-chat", system: "Now terse." });
    const [first, second, third] = upstream.chatRequests().map((r) => r.body.messages as Json[]);
    expect(first![0]).toMatchObject({ role: "system", content: "Alias system." });
    expect(second!.filter((m) => m.role === "system").map((m) => m.content)).toEqual(["Alias system."]);
    expect(third!.filter((m) => m.role === "system").map((m) => m.content)).toEqual(["Now terse."]);
    expect(roles(third!)).toEqual(["system", "user", "assistant", "user", "assistant", "user"]);
  });

  it("delivers a steer message between two tool calls, skipping the rest of the turn", async () => {
    upstream.script([
      {
        calls: [
          { id: "call_ask", name: ELICIT, arguments: {} },
          { id: "call_echo", name: "everything__echo", arguments: { message: "in English" } },
        ],
      },
      { text: "D'accord, en français." },
    ]);
    const progress: string[] = [];
    const queued: Json[] = [];
    onElicit = async () => {
      // The first call is running: a second chat on the conversation is refused, steer is queued.
      queued.push(await chat({ prompt: "again", conversation: "steered" }));
      queued.push(await steer({ conversation: "steered", message: "Answer in French instead." }));
    };
    const result = await chat({ prompt: "ask me, then echo", conversation: "steered" }, (p) => progress.push(p.message ?? ""));
    onElicit = async () => undefined;
    expect(queued[0].isError).toBe(true);
    expect(textOf(queued[0])).toContain('conversation "steered" is answering a chat call already');
    expect(queued[1].isError).toBeFalsy();
    expect(textOf(queued[1])).toMatch(/^Queued for conversation "steered"/);
    expect(textOf(result)).toBe("D'accord, en français.");
    const structured = result.structuredContent as Json;
    expect(structured.toolCalls.map((t: Json) => [t.name, t.isError])).toEqual([
      [ELICIT, false],
      ["everything__echo", true],
    ]);
    expect(structured.delivered).toEqual([{ kind: "steer", text: "Answer in French instead." }]);
    expect(progress).toContain("turn 1: tool everything__echo skipped (a message from the user came first) (0 ms)");
    expect(progress).toContain("turn 1: steering message delivered");
    const second = upstream.chatRequests()[1]!.body.messages as Json[];
    expect(roles(second)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(second[3]).toMatchObject({ tool_call_id: "call_echo", content: SKIPPED_FOR_STEERING });
    expect(second[4].content).toBe("Answer in French instead.");
    // Only one model call saw the echo: it never ran (its server would have answered "Echo: in English").
    expect(JSON.stringify(second)).not.toContain("Echo: in English");
  });

  it("delivers a follow-up only when the agent would otherwise stop", async () => {
    upstream.script([{ calls: [{ id: "call_ask", name: ELICIT, arguments: {} }] }, { text: "Done asking." }, { text: "Summary: you are Ada." }]);
    onElicit = async () => {
      await steer({ conversation: "follow", message: "Then summarize.", followUp: true });
    };
    const result = await chat({ prompt: "ask me", conversation: "follow" });
    onElicit = async () => undefined;
    const requests = upstream.chatRequests();
    expect(requests).toHaveLength(3);
    // Not after the tool call: the second model call ends with its result.
    expect(roles(requests[1]!.body.messages)).toEqual(["user", "assistant", "tool"]);
    expect(roles(requests[2]!.body.messages)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(requests[2]!.body.messages.at(-1).content).toBe("Then summarize.");
    expect(textOf(result)).toBe("Done asking.\n\nSummary: you are Ada.");
    expect((result.structuredContent as Json).delivered).toEqual([{ kind: "follow_up", text: "Then summarize." }]);
  });

  it("refuses to steer a conversation with no run going on, and a bad id", async () => {
    const idle = await steer({ conversation: "follow", message: "hello?" });
    expect(idle.isError).toBe(true);
    expect(textOf(idle)).toBe('Conversation "follow" has no chat run going on on this gateway: send the message with chat (conversation "follow") instead.');
    const bad = await chat({ prompt: "x", conversation: "no spaces allowed" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe("Invalid arguments for chat: conversation: expected 1 to 128 letters, digits or . _ : -");
  });
});
