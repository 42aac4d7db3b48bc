/**
 * The Messages door in front of an Anthropic upstream, driven by the real `@anthropic-ai/sdk`
 * client: a faithful pass-through (what the client sent reaches Anthropic unchanged but for the
 * gateway's MCP tools and the turns it runs), MCP tools run inside, client tools handed back
 * and the hidden steps spliced back, thinking signatures byte for byte, count_tokens forwarded.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { COUNTED_TOKENS, fakeSignature, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let client: Anthropic;

beforeAll(async () => {
  upstream = await startScriptedUpstream("anthropic");
  gw = await startGateway({
    providers: { claude: { type: "anthropic", baseURL: upstream.url, apiKey: "sk-ant-upstream" } },
    models: { "claude-*": { model: "claude/claude-test-1" } },
    gateway: { retries: { attempts: 1 } },
  });
  client = new Anthropic({ baseURL: gw.url, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});
beforeEach(() => upstream.script([{ text: "Hello there." }]));

const lookup: Anthropic.Tool = { name: "lookup", description: "Looks a word up", input_schema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };

describe("pass-through to an Anthropic upstream", () => {
  it("sends the client's body unchanged but for the model and the added MCP tools, with its beta headers", async () => {
    const body = {
      model: "claude-opus-5-5",
      max_tokens: 1000,
      system: [{ type: "text" as const, text: "Be brief.", cache_control: { type: "ephemeral" as const } }],
      messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "Hi", cache_control: { type: "ephemeral" as const } }] }],
      tools: [lookup, { type: "web_search_20250305", name: "web_search", max_uses: 2 } as Anthropic.WebSearchTool20250305],
      metadata: { user_id: "u-1" },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      some_future_field: { a: 1 },
    };
    const message = await client.messages.create(body as Anthropic.MessageCreateParamsNonStreaming, { headers: { "anthropic-beta": "context-management-2025-06-27,advanced-tool-use-2025-11-20" } });
    expect(message.content).toEqual([{ type: "text", text: "Hello there." }]);
    const [sent] = upstream.chatRequests();
    const { tools, model, ...rest } = sent!.body;
    const { tools: clientTools, model: _m, ...clientRest } = body;
    expect(model).toBe("claude-test-1");
    expect(rest).toEqual(clientRest);
    // The client's tools first, exactly as sent; the gateway's MCP tools after them.
    expect(tools.slice(0, 2)).toEqual(clientTools);
    expect(tools.slice(2).map((t: { name: string }) => t.name)).toContain("everything__echo");
    expect(sent!.headers["anthropic-beta"]).toBe("context-management-2025-06-27,advanced-tool-use-2025-11-20");
    // The provider's key from the gateway config, never the client's.
    expect(sent!.headers["x-api-key"] ?? sent!.headers["authorization"]).toMatch(/sk-ant-upstream$/);
  });

  it("takes thinking.block_binding out when its beta is not asked for, and keeps it when it is", async () => {
    const params = {
      model: "claude-x",
      max_tokens: 2000,
      thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
      messages: [{ role: "user" as const, content: "Hi" }],
    } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    await client.messages.create(params);
    expect(upstream.chatRequests()[0]!.body.thinking).toEqual({ type: "adaptive" });
    await client.messages.create(params, { headers: { "anthropic-beta": "thinking-binding-controls-2026-08-01" } });
    expect(upstream.chatRequests()[1]!.body.thinking).toEqual({ type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } });
  });

  it("runs MCP tools inside and streams the answer in Anthropic's event grammar", async () => {
    upstream.script([
      { reasoning: "I should echo.", calls: [{ id: "toolu_mcp1", name: "everything__echo", arguments: { message: "ping" } }] },
      { reasoning: "Done.", text: "The echo said ping." },
    ]);
    const stream = client.messages.stream({ model: "claude-x", max_tokens: 2000, messages: [{ role: "user", content: "Echo ping" }] });
    const events: string[] = [];
    const indexes: number[] = [];
    stream.on("streamEvent", (event) => {
      events.push(event.type);
      if (event.type === "content_block_start") indexes.push(event.index);
    });
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("end_turn");
    // Both turns' thinking, each with its own signature, and the answer; the MCP call is not shown.
    expect(final.content).toEqual([
      { type: "thinking", thinking: "I should echo.", signature: fakeSignature("I should echo.") },
      { type: "thinking", thinking: "Done.", signature: fakeSignature("Done.") },
      { type: "text", text: "The echo said ping." },
    ]);
    expect(indexes).toEqual([0, 1, 2]);
    expect(events[0]).toBe("message_start");
    expect(events.slice(-2)).toEqual(["message_delta", "message_stop"]);
    // The second upstream call carries the hidden turn: thinking byte for byte, the call and its result.
    const second = upstream.chatRequests()[1]!.body;
    expect(second.messages.at(-2)).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "I should echo.", signature: fakeSignature("I should echo.") },
        { type: "tool_use", id: "toolu_mcp1", name: "everything__echo", input: { message: "ping" } },
      ],
    });
    expect(second.messages.at(-1).content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_mcp1" });
  });

  it("hands client tools back beside MCP tools, and splices the hidden steps back on the follow-up", async () => {
    upstream.script([
      { reasoning: "Both.", calls: [{ id: "toolu_m", name: "everything__echo", arguments: { message: "x" } }, { id: "toolu_c", name: "lookup", arguments: { q: "gateway" } }] },
      { text: "A gateway is a door." },
    ]);
    const first = await client.messages.create({ model: "claude-x", max_tokens: 2000, tools: [lookup], messages: [{ role: "user", content: "Define gateway" }] });
    expect(first.stop_reason).toBe("tool_use");
    const toolUses = first.content.filter((b) => b.type === "tool_use");
    expect(toolUses).toEqual([{ type: "tool_use", id: "toolu_c", name: "lookup", input: { q: "gateway" } }]);
    const followUp = await client.messages.create({
      model: "claude-x",
      max_tokens: 2000,
      tools: [lookup],
      messages: [
        { role: "user", content: "Define gateway" },
        { role: "assistant", content: first.content as Anthropic.ContentBlockParam[] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_c", content: "a door" }] },
      ],
    });
    expect(followUp.content).toEqual([{ type: "text", text: "A gateway is a door." }]);
    const sent = upstream.chatRequests()[1]!.body.messages;
    // The assistant turn with both calls, then ONE user turn with both results (MCP's first).
    expect(sent[1].content.map((b: { type: string; id?: string }) => b.id ?? b.type)).toEqual(["thinking", "toolu_m", "toolu_c"]);
    expect(sent[2].role).toBe("user");
    expect(sent[2].content.map((b: { tool_use_id: string }) => b.tool_use_id)).toEqual(["toolu_m", "toolu_c"]);
    expect(sent).toHaveLength(3);
  });

  it("forwards count_tokens to the Anthropic upstream, with the gateway's tools", async () => {
    const counted = await client.messages.countTokens({ model: "claude-x", messages: [{ role: "user", content: "Hi" }] });
    expect(counted.input_tokens).toBe(COUNTED_TOKENS);
    const request = upstream.requests.find((r) => r.path.startsWith("/v1/messages/count_tokens"))!;
    expect(request.body.tools.map((t: { name: string }) => t.name)).toContain("everything__echo");
    expect(request.body.max_tokens).toBeUndefined();
  });
});

describe("failures from an Anthropic upstream", () => {
  it("a 529 keeps its status and retry-after, as an overloaded_error", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(529, { "content-type": "application/json", "retry-after": "3" });
      res.end(JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }));
    });
    const error = await client.messages.create({ model: "claude-x", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] }, { headers: { "x-mcp-servers": "none" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const failure = error as InstanceType<typeof Anthropic.APIError>;
    expect(failure.status).toBe(529);
    expect(failure.headers?.get("retry-after")).toBe("3");
    expect(failure.error).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
  });

  it("an error after the answer started ends the stream with an error event", async () => {
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (data: { type: string; [key: string]: unknown }) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      send({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
      send({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
      send({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Partial" } });
      send({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      res.end();
    });
    const response = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-mcp-servers": "none" },
      body: JSON.stringify({ model: "claude-x", max_tokens: 100, stream: true, messages: [{ role: "user", content: "Hi" }] }),
    });
    expect(response.status).toBe(200);
    const events = (await response.text()).split("\n\n").filter((f) => f !== "").map((f) => f.split("\n")[0]!.slice("event: ".length));
    expect(events).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "error"]);
  });

  it("a client that disconnects mid-stream aborts the upstream request", async () => {
    let release!: () => void;
    upstream.script([{ text: "a long answer", hang: new Promise<void>((resolve) => (release = resolve)) }]);
    const stream = client.messages.stream({ model: "claude-x", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] }, { headers: { "x-mcp-servers": "none" } });
    const ended = stream.done().then(
      () => "finished",
      (error: unknown) => (error instanceof Anthropic.APIUserAbortError ? "aborted" : String(error)),
    );
    await new Promise<void>((resolve) => stream.on("text", () => resolve()));
    stream.abort();
    expect(await ended).toBe("aborted");
    await upstream.closed(0);
    release();
  });
});

describe("server tools at Anthropic, streamed", () => {
  it("passes server tool blocks through and keeps pause_turn, streamed as whole", async () => {
    const search = { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "gateway" } };
    const found = { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [{ type: "web_search_result", url: "https://example.com", title: "Example", encrypted_content: "abc", page_age: null }] };
    upstream.handle((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const send = (data: { type: string; [key: string]: unknown }) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      send({ type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "m", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } });
      send({ type: "content_block_start", index: 0, content_block: { ...search, input: {} } });
      send({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"query": "gateway"}' } });
      send({ type: "content_block_stop", index: 0 });
      send({ type: "content_block_start", index: 1, content_block: found });
      send({ type: "content_block_stop", index: 1 });
      send({ type: "content_block_start", index: 2, content_block: { type: "text", text: "" } });
      send({ type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Searching more." } });
      send({ type: "content_block_stop", index: 2 });
      send({ type: "message_delta", delta: { stop_reason: "pause_turn", stop_sequence: null }, usage: { output_tokens: 9 } });
      send({ type: "message_stop" });
      res.end();
    });
    const webSearch = { type: "web_search_20250305", name: "web_search" } as Anthropic.WebSearchTool20250305;
    const streamed = await client.messages.stream({ model: "claude-x", max_tokens: 100, tools: [webSearch], messages: [{ role: "user", content: "Search" }] }, { headers: { "x-mcp-servers": "none" } }).finalMessage();
    expect(streamed.stop_reason).toBe("pause_turn");
    expect(streamed.content).toEqual([search, found, { type: "text", text: "Searching more." }]);
  });
});

