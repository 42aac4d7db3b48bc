/**
 * The Responses door, driven by the real `openai` client's `responses` API against a scripted
 * OpenAI-chat upstream (and DeepSeek's strict fake): text and streams, stored responses and
 * `previous_response_id`, the client's function, custom (freeform) and namespaced tools mapped
 * back exactly, MCP tools run inside and shown as `mcp_call` items, `mcp` tools selecting
 * servers with OpenAI's approval flow, hosted tools left out with a warning, reasoning carried in
 * `encrypted_content` without any gateway state.
 */
import OpenAI from "openai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { DEEPSEEK_REASONING } from "../helpers/strict-fakes/deepseek.ts";
import { FINAL_ANSWER } from "../helpers/strict-fakes/conversation.ts";

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({ providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } }, gateway: { retries: { attempts: 1 } } });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});
beforeEach(() => upstream.script([{ text: "Hello there." }]));

const noMcp = { headers: { "x-mcp-servers": "none" } };
const weather: OpenAI.Responses.FunctionTool = { type: "function", name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, strict: false };

describe("responses.create", () => {
  it("answers text, whole and streamed, with the response object and usage", async () => {
    const response = await client.responses.create({ model: "p/m", input: "Hi", instructions: "Be brief." }, noMcp);
    expect(response.object).toBe("response");
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("Hello there.");
    expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7, total_tokens: 18 });
    expect(upstream.chatRequests()[0]!.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);

    const stream = client.responses.stream({ model: "p/m", input: "Hi", instructions: "Be brief." }, noMcp);
    const types: string[] = [];
    const sequence: number[] = [];
    const snapshots: Record<string, unknown> = {};
    stream.on("event", (event) => {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if ("response" in event) snapshots[event.type] = event.response;
    });
    const final = await stream.finalResponse();
    expect(final.output_text).toBe("Hello there.");
    expect(types[0]).toBe("response.created");
    expect(types.at(-1)).toBe("response.completed");
    expect(types).toContain("response.output_text.delta");
    expect(sequence).toEqual(sequence.map((_, i) => i));
    // One snapshot in both opening events; the stored response is the one the last event carried.
    expect(snapshots["response.created"]).toMatchObject({ id: final.id, status: "in_progress", instructions: "Be brief.", output: [] });
    expect(snapshots["response.in_progress"]).toEqual(snapshots["response.created"]);
    // Raw, as the gateway stores it (the SDK adds output_text), with the same key (stored responses are per key).
    const stored = await fetch(`${gw.url}/v1/responses/${final.id}`, { headers: { authorization: "Bearer unused" } });
    expect(await stored.json()).toEqual(snapshots["response.completed"]);
  });

  it("stores responses: retrieve, input_items, previous_response_id, delete", async () => {
    upstream.script(replies({ text: "First." }, { text: "Second." }));
    const first = await client.responses.create({ model: "p/m", input: [{ role: "user", content: "One" }] }, noMcp);
    const retrieved = await client.responses.retrieve(first.id);
    expect(retrieved.id).toBe(first.id);
    expect(retrieved.output_text).toBe("First.");
    const items = await client.responses.inputItems.list(first.id);
    expect(items.data).toHaveLength(1);
    expect(items.data[0]).toMatchObject({ type: "message", role: "user", content: [{ type: "input_text", text: "One" }] });
    await client.responses.create({ model: "p/m", previous_response_id: first.id, input: "Two" }, noMcp);
    expect(upstream.chatRequests()[1]!.body.messages).toEqual([
      { role: "user", content: "One" },
      { role: "assistant", content: "First." },
      { role: "user", content: "Two" },
    ]);
    await client.responses.delete(first.id);
    await expect(client.responses.retrieve(first.id)).rejects.toMatchObject({ status: 404 });
    await expect(client.responses.create({ model: "p/m", previous_response_id: first.id, input: "x" }, noMcp)).rejects.toMatchObject({ status: 400 });
  });

  it("keeps nothing with store: false", async () => {
    const response = await client.responses.create({ model: "p/m", input: "Hi", store: false }, noMcp);
    await expect(client.responses.retrieve(response.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("the client's tools", () => {
  it("hands a function call back, runs an MCP call inside (an mcp_call item), and continues from the output", async () => {
    upstream.script(
      replies(
        { calls: [{ id: "call_m", name: "everything__echo", arguments: { message: "hi" } }, { id: "call_w", name: "get_weather", arguments: { city: "Paris" } }] },
        { text: "Sunny in Paris." },
      ),
    );
    const first = await client.responses.create({ model: "p/m", input: "Weather?", tools: [weather], store: false });
    const types = first.output.map((item) => item.type);
    expect(types).toEqual(["mcp_call", "function_call"]);
    expect(first.output[0]).toMatchObject({ type: "mcp_call", server_label: "everything", name: "echo", status: "completed" });
    expect(first.output[1]).toMatchObject({ type: "function_call", call_id: "call_w", name: "get_weather", arguments: '{"city":"Paris"}' });
    const second = await client.responses.create({
      model: "p/m",
      tools: [weather],
      store: false,
      input: [{ role: "user", content: "Weather?" }, ...(first.output as OpenAI.Responses.ResponseInputItem[]), { type: "function_call_output", call_id: "call_w", output: "18°C" }],
    });
    expect(second.output_text).toBe("Sunny in Paris.");
    const sent = upstream.chatRequests()[1]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(sent[1].tool_calls.map((c: { id: string }) => c.id)).toEqual(["call_m", "call_w"]);
  });

  it("maps freeform (custom) and namespaced tools to functions and back exactly, streamed", async () => {
    const patch: OpenAI.Responses.CustomTool = { type: "custom", name: "apply_patch", description: "Applies a patch", format: { type: "grammar", syntax: "lark", definition: "start: /.+/" } };
    const namespace = { type: "namespace", name: "mcp__echo", description: "Echo tools", tools: [{ type: "function", name: "echo", description: "Echo", parameters: { type: "object", properties: { text: { type: "string" } } }, strict: false }] };
    upstream.script([{ calls: [{ id: "call_p", name: "apply_patch", arguments: { input: "*** Begin Patch\n*** End Patch" } }, { id: "call_e", name: "mcp__echo__echo", arguments: { text: "x" } }] }]);
    const stream = client.responses.stream({ model: "p/m", input: "Patch", tools: [patch, namespace as never], store: false }, noMcp);
    const types: string[] = [];
    stream.on("event", (event) => types.push(event.type));
    const final = await stream.finalResponse();
    const offered = upstream.chatRequests()[0]!.body.tools.map((t: { function: { name: string; parameters: { required?: string[] } } }) => [t.function.name, t.function.parameters.required]);
    expect(offered).toEqual([["apply_patch", ["input"]], ["mcp__echo__echo", undefined]]);
    expect(final.output).toMatchObject([
      { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
      { type: "function_call", call_id: "call_e", name: "echo", namespace: "mcp__echo", arguments: '{"text":"x"}' },
    ]);
    expect(types).toContain("response.custom_tool_call_input.done");
    expect(types).toContain("response.function_call_arguments.done");
  });

  it("leaves hosted tools out for a chat provider with a warning, and refuses a request that forces one", async () => {
    const { response } = await client.responses.create({ model: "p/m", input: "Hi", tools: [{ type: "web_search" }, weather] }, noMcp).withResponse();
    expect(response.headers.get("x-mcp-gateway-warning")).toContain('hosted tool "web_search" left out');
    expect(upstream.chatRequests()[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["get_weather"]);
    await expect(client.responses.create({ model: "p/m", input: "Hi", tools: [{ type: "web_search" }], tool_choice: { type: "web_search_preview" } }, noMcp)).rejects.toMatchObject({ status: 400 });
  });
});

describe("MCP the Responses way", () => {
  const mcp = (extra: Record<string, unknown> = {}) => ({ type: "mcp", server_label: "everything", ...extra }) as OpenAI.Responses.Tool.Mcp;

  it("selects the configured server, lists its tools, and shows each call as an mcp_call", async () => {
    upstream.script(replies({ calls: [{ id: "call_m", name: "everything__echo", arguments: { message: "hi" } }] }, { text: "Echoed." }));
    const response = await client.responses.create({ model: "p/m", input: "Echo", tools: [mcp({ require_approval: "never", allowed_tools: ["echo", "get-sum"] })] });
    expect(response.output.map((item) => item.type)).toEqual(["mcp_list_tools", "mcp_call", "message"]);
    expect((response.output[0] as OpenAI.Responses.ResponseOutputItem.McpListTools).tools.map((t) => t.name).sort()).toEqual(["echo", "get-sum"]);
    expect(response.output[1]).toMatchObject({ server_label: "everything", name: "echo", output: "Echo: hi" });
    expect(upstream.chatRequests()[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual(["everything__echo", "everything__get-sum"]);
  });

  it("asks for approval (OpenAI's default), then runs the approved call and goes on", async () => {
    upstream.script(replies({ calls: [{ id: "call_a", name: "everything__echo", arguments: { message: "ok?" } }] }, { text: "Done." }));
    const first = await client.responses.create({ model: "p/m", input: "Echo", tools: [mcp({ allowed_tools: ["echo"] })] });
    const request = first.output.find((item) => item.type === "mcp_approval_request") as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    expect(request).toMatchObject({ id: "call_a", server_label: "everything", name: "echo" });
    const second = await client.responses.create({
      model: "p/m",
      previous_response_id: first.id,
      tools: [mcp({ allowed_tools: ["echo"] })],
      input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }],
    });
    expect(second.output.map((item) => item.type)).toEqual(["mcp_call", "message"]);
    expect(second.output[0]).toMatchObject({ approval_request_id: "call_a", output: "Echo: ok?" });
    const sent = upstream.chatRequests()[1]!.body.messages;
    expect(sent.at(-1)).toMatchObject({ role: "tool", tool_call_id: "call_a", content: "Echo: ok?" });
  });

  it("refuses an unknown server or a server_url of its own", async () => {
    await expect(client.responses.create({ model: "p/m", input: "x", tools: [{ type: "mcp", server_label: "nope" } as OpenAI.Responses.Tool.Mcp] })).rejects.toMatchObject({ status: 400 });
    await expect(client.responses.create({ model: "p/m", input: "x", tools: [mcp({ server_url: "http://169.254.169.254/mcp" })] })).rejects.toThrow(/server_url/);
    expect(upstream.chatRequests()).toHaveLength(0);
  });
});

describe("reasoning without gateway state", () => {
  let fake: StrictFake;
  const extra: RunningGateway[] = [];
  afterEach(async () => {
    for (const g of extra.splice(0)) await g.close();
    await fake?.close();
  });

  it("DeepSeek's reasoning rides in encrypted_content and goes back through a fresh gateway", async () => {
    fake = await startStrictFake(FAMILIES["deepseek"]!());
    const config = { providers: { d: { type: "openai", baseURL: fake.url, apiKey: "k", quirks: "deepseek" } }, gateway: { retries: { attempts: 1 } } };
    const a = await startGateway(config);
    const b = await startGateway(config);
    extra.push(a, b);
    const tools: OpenAI.Responses.FunctionTool[] = [weather, { ...weather, name: "get_time" }];
    const first = await new OpenAI({ baseURL: `${a.url}/v1`, apiKey: "x" }).responses.create(
      { model: "d/deepseek-reasoner", input: "Weather and time?", tools, store: false, include: ["reasoning.encrypted_content"] },
      noMcp,
    );
    const reasoning = first.output.find((item) => item.type === "reasoning") as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.summary[0]?.text).toBe(DEEPSEEK_REASONING);
    expect(reasoning.encrypted_content).toBeTruthy();
    const calls = first.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === "function_call");
    const second = await new OpenAI({ baseURL: `${b.url}/v1`, apiKey: "x" }).responses.create(
      {
        model: "d/deepseek-reasoner",
        tools,
        store: false,
        input: [
          { role: "user", content: "Weather and time?" },
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          ...calls.map((call) => ({ type: "function_call_output" as const, call_id: call.call_id, output: "fine" })),
        ],
      },
      noMcp,
    );
    expect(fake.rejections).toEqual([]);
    expect(second.output_text).toBe(FINAL_ANSWER);
    expect(fake.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === "assistant").reasoning_content).toBe(DEEPSEEK_REASONING);
  });
});

describe("review fixes", () => {
  it("previous_response_id keeps the conversation's developer messages, not its instructions", async () => {
    upstream.script(replies({ text: "First." }, { text: "Second." }));
    const first = await client.responses.create({ model: "p/m", instructions: "Old instructions.", input: [{ role: "developer", content: "Codex-style base prompt." }, { role: "user", content: "One" }] }, noMcp);
    await client.responses.create({ model: "p/m", instructions: "New instructions.", previous_response_id: first.id, input: "Two" }, noMcp);
    expect(upstream.chatRequests()[1]!.body.messages).toEqual([
      { role: "system", content: "New instructions." },
      { role: "system", content: "Codex-style base prompt." },
      { role: "user", content: "One" },
      { role: "assistant", content: "First." },
      { role: "user", content: "Two" },
    ]);
  });

  it("echoed mcp_call items keep the turn's order: the call, its result, then the answer", async () => {
    upstream.script([{ text: "ok" }]);
    await client.responses.create({
      model: "p/m",
      store: false,
      input: [
        { role: "user", content: "Echo" },
        { type: "mcp_call", id: "mcp_1", server_label: "everything", name: "echo", arguments: '{"message":"hi"}', output: "Echo: hi" } as never,
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "It said hi." }] } as never,
        { role: "user", content: "Again" },
      ],
    });
    const sent = upstream.chatRequests()[0]!.body.messages as { role: string; content: unknown; tool_calls?: { function: { name: string } }[] }[];
    expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(sent[1]!.tool_calls![0]!.function.name).toBe("everything__echo");
    expect(sent[3]!.content).toBe("It said hi.");
  });

  it("an approval runs only a tool the request allows", async () => {
    upstream.script([{ text: "ok" }]);
    const response = await client.responses.create({
      model: "p/m",
      store: false,
      tools: [{ type: "mcp", server_label: "everything", allowed_tools: ["echo"] } as OpenAI.Responses.Tool.Mcp],
      input: [
        { role: "user", content: "Sum" },
        { type: "mcp_approval_request", id: "apr_1", server_label: "everything", name: "get-sum", arguments: '{"a":1,"b":2}' } as never,
        { type: "mcp_approval_response", approval_request_id: "apr_1", approve: true },
      ],
    });
    expect(response.output.some((item) => item.type === "mcp_call")).toBe(false);
    const sent = upstream.chatRequests()[0]!.body.messages as { role: string; content: string }[];
    expect(sent.find((m) => m.role === "tool")!.content).toContain("allowed_tools");
  });

  it("one key never reaches another key's stored responses", async () => {
    const keyed = await startGateway({ providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } }, gateway: { apiKeys: ["key-a-123456", "key-b-123456"] } });
    try {
      upstream.script([{ text: "Secret." }]);
      const a = new OpenAI({ baseURL: `${keyed.url}/v1`, apiKey: "key-a-123456", maxRetries: 0 });
      const b = new OpenAI({ baseURL: `${keyed.url}/v1`, apiKey: "key-b-123456", maxRetries: 0 });
      const mine = await a.responses.create({ model: "p/m", input: "Hi" }, noMcp);
      await expect(b.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
      await expect(b.responses.inputItems.list(mine.id)).rejects.toMatchObject({ status: 404 });
      await expect(b.responses.delete(mine.id)).rejects.toMatchObject({ status: 404 });
      await expect(b.responses.create({ model: "p/m", previous_response_id: mine.id, input: "More" }, noMcp)).rejects.toMatchObject({ status: 400 });
      expect((await a.responses.retrieve(mine.id)).output_text).toBe("Secret.");
    } finally {
      await keyed.close();
    }
  });
});

