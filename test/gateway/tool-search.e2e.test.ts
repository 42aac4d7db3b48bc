/**
 * The tool context budget end to end: a registry of 300 MCP tools (a real MCP server), an alias
 * with `toolSearch` — the first request carries the search tool and no other, a tool the search
 * finds is offered on the next turn and called, and the prompt is a small part of what every
 * tool's schema would cost. With an Anthropic upstream the provider's own tool search is used
 * instead: the tools go with `defer_loading` beside Anthropic's BM25 search tool, against a strict
 * fake that refuses deferred tools without a search tool and a call of a tool no search loaded.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { faultServerEntry } from "../helpers/mcp-servers.ts";
import { promptTokens } from "../helpers/context-limit.ts";
import { sendAnthropicError, startFakeAnthropic, replyWith } from "../helpers/anthropic-rules.ts";
import type { FakeUpstream, Handler } from "../helpers/fake-upstream.ts";

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let client: OpenAI;
let claude: FakeUpstream;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  claude = await startFakeAnthropic(nativeSearch);
  gw = await startGateway({
    // The fault server's own 10 tools and 291 fillers: 300.
    mcpServers: { fault: faultServerEntry({ fillers: 291 }) },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" }, claude: { type: "anthropic", baseURL: claude.url, apiKey: "k" } },
    models: {
      searching: { model: "fake/gpt-test", toolSearch: { whenOverTokens: 2_000 } },
      native: { model: "claude/claude-sonnet-4-5", toolSearch: { whenOverTokens: 2_000 } },
      everything: { model: "fake/gpt-test" },
    },
    gateway: { retries: { attempts: 1 } },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "x", maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await claude?.close();
});

type Block = { type: string; name?: string; tool_use_id?: string; content?: { tool_references?: { tool_name: string }[] } };
type WireTool = { name: string; type?: string; defer_loading?: boolean };

/**
 * Anthropic with tool search: deferred tools need a tool search tool beside them, and a tool_use
 * of a deferred tool needs a tool_search_tool_result that referenced it before. Asked, the model
 * searches, Anthropic loads fault__echo, the model calls it; given the result, it answers.
 */
const nativeSearch: Handler = (req, res) => {
  const tools = (req.body.tools ?? []) as WireTool[];
  const deferred = new Set(tools.filter((t) => t.defer_loading === true).map((t) => t.name));
  if (deferred.size > 0 && !tools.some((t) => t.type?.startsWith("tool_search_tool_"))) {
    return sendAnthropicError(res, 400, "invalid_request_error", "tools: deferred tools (defer_loading: true) need a tool search tool in tools");
  }
  const referenced = new Set<string>();
  for (const message of req.body.messages as { role: string; content: Block[] | string }[]) {
    if (typeof message.content === "string") continue;
    for (const block of message.content) {
      if (block.type === "tool_search_tool_result") for (const ref of block.content?.tool_references ?? []) referenced.add(ref.tool_name);
      if (block.type === "tool_use" && deferred.has(block.name!) && !referenced.has(block.name!)) {
        return sendAnthropicError(res, 400, "invalid_request_error", `tool_use ${block.name}: the tool is deferred and no tool_search_tool_result referenced it`);
      }
    }
  }
  const last = (req.body.messages as { content: Block[] | string }[]).at(-1)!.content;
  const answered = Array.isArray(last) && last.some((b) => b.type === "tool_result");
  const content = answered
    ? [{ type: "text", text: "Echoed through Anthropic's tool search." }]
    : [
        { type: "server_tool_use", id: "srvtoolu_01", name: "tool_search_tool_bm25", input: { query: "echo text" } },
        { type: "tool_search_tool_result", tool_use_id: "srvtoolu_01", content: { type: "tool_search_tool_search_result", tool_references: [{ type: "tool_reference", tool_name: "fault__echo" }] } },
        { type: "tool_use", id: "toolu_01", name: "fault__echo", input: { text: "native" } },
      ];
  const usage = { input_tokens: 900, output_tokens: 20, server_tool_use: { web_search_requests: 0 } };
  return replyWith({ id: "msg_01", type: "message", role: "assistant", model: "claude-sonnet-4-5", content, stop_reason: answered ? "end_turn" : "tool_use", stop_sequence: null, usage })(req, res);
};

type Body = { tools?: { function: { name: string } }[]; messages: { role: string; content?: unknown }[] };
const names = (i: number) => ((upstream.chatRequests()[i]!.body as Body).tools ?? []).map((t) => t.function.name);

describe("toolSearch over 300 tools", () => {
  it("offers find_tools alone, then the tool it found, which the model calls; the prompt falls accordingly", async () => {
    upstream.script([{ text: "hello" }]);
    await client.chat.completions.create({ model: "everything", messages: [{ role: "user", content: "hi" }] });
    expect(names(0).length).toBeGreaterThanOrEqual(300);
    const full = promptTokens("openai", upstream.chatRequests()[0]!.body);

    upstream.script([
      { calls: [{ id: "s1", name: "find_tools", arguments: { query: "echo text back" } }] },
      { calls: [{ id: "e1", name: "fault__echo", arguments: { text: "found you" } }] },
      { text: "The echo said: found you." },
    ]);
    const completion = await client.chat.completions.create({ model: "searching", messages: [{ role: "user", content: "echo 'found you'" }] });
    expect(completion.choices[0]!.message.content).toBe("The echo said: found you.");
    expect(names(0)).toEqual(["find_tools"]);
    expect(names(1)).toEqual(["find_tools", "fault__echo"]);
    // The search result names the tool and its parameters; the echo ran for real.
    const bodies = upstream.chatRequests().map((r) => r.body as Body);
    expect(String(bodies[1]!.messages.at(-1)!.content)).toMatch(/- fault__echo: Echoes text Parameters: text \(string, required\)/);
    expect(String(bodies[2]!.messages.at(-1)!.content)).toContain("found you");
    const searched = promptTokens("openai", bodies[0]!);
    expect(searched * 20).toBeLessThan(full);
    const report = (completion as unknown as { mcp_gateway: { tool_search: { tools: number; found: string[]; searches: number; tokens_saved: number } } }).mcp_gateway.tool_search;
    expect(report).toMatchObject({ tools: 300, searches: 1 });
    expect(report.found).toContain("fault__echo");
    // Three model calls, each without most of the schemas.
    expect(report.tokens_saved).toBeGreaterThan(2 * (full - searched) * 0.5);
  });

  it("the next request of the conversation offers the tools it already used", async () => {
    upstream.script([{ text: "ok" }]);
    await client.chat.completions.create({
      model: "searching",
      messages: [
        { role: "user", content: "echo" },
        { role: "assistant", content: null, tool_calls: [{ id: "e0", type: "function", function: { name: "fault__echo", arguments: '{"text":"x"}' } }] },
        { role: "tool", tool_call_id: "e0", content: "x" },
        { role: "user", content: "again" },
      ],
    });
    expect(names(0)).toEqual(["find_tools", "fault__echo"]);
  });

  it("with an Anthropic upstream, uses Anthropic's own tool search: tools deferred, found by the provider, called", async () => {
    const completion = await client.chat.completions.create({ model: "native", messages: [{ role: "user", content: "echo 'native'" }] });
    expect(completion.choices[0]!.message.content).toBe("Echoed through Anthropic's tool search.");
    const bodies = claude.requests.map((r) => r.body as { tools: WireTool[]; messages: { role: string; content: Block[] }[] });
    expect(bodies).toHaveLength(2);
    // First call: every MCP tool deferred, Anthropic's search tool beside them, no find_tools.
    const first = bodies[0]!.tools;
    expect(first.filter((t) => t.defer_loading === true)).toHaveLength(300);
    expect(first).toContainEqual({ type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" });
    expect(first.some((t) => t.name === "find_tools")).toBe(false);
    // Second call: the search's blocks went back as they came, and the tool it loaded is no longer deferred.
    expect(bodies[1]!.messages[1]!.content.map((b) => b.type)).toEqual(["server_tool_use", "tool_search_tool_result", "tool_use"]);
    expect(bodies[1]!.tools.find((t) => t.name === "fault__echo")?.defer_loading).toBeUndefined();
    expect(JSON.stringify(bodies[1]!.messages.at(-1))).toContain("native");
    const report = (completion as unknown as { mcp_gateway: { tool_search: { found: string[]; tokens_saved: number } } }).mcp_gateway.tool_search;
    expect(report.found).toEqual(["fault__echo"]);
    expect(report.tokens_saved).toBeGreaterThan(0);
  });
});
