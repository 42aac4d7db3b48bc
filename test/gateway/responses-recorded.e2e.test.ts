/**
 * The Responses door with the requests the real Codex CLI 0.169.0 sent (test/fixtures/clients/codex,
 * recorded against a fake OpenAI Responses API), replayed byte for byte (headers and body) into
 * the gateway, answered by the strict fakes of three Chat Completions providers (OpenAI, Zhipu
 * GLM, DeepSeek in thinking mode), which refuse what the real providers refuse.
 *
 * For every recorded request it checks what went upstream against what the request says,
 * re-derived here from the recorded items: the developer messages as system messages, the
 * client's tools as functions (namespaced ones flattened to `<namespace>__<name>`, the freeform
 * `apply_patch` as a function with one string parameter `input`, tools a `tool_search_output`
 * loaded added, `web_search` left out and said in `x-mcp-gateway-warning`), and the recorded
 * history (reasoning, function_call/_output, custom_tool_call/_output, tool_search_call/_output,
 * namespaced function_call) as assistant tool_calls and tool messages in order. The streamed
 * answer must follow the Responses event grammar (test/helpers/responses-stream.ts) and map the
 * model's calls back to the client's tool kinds.
 *
 * Most runs send `x-mcp-servers: none` (the gateway's MCP tools would only add names); one block
 * runs with the gateway's MCP server (server-everything) on. Two more blocks: the reasoning
 * items the gateway hands out, echoed the way Codex echoes them, restore DeepSeek's reasoning;
 * and a scripted model making exactly the recorded calls gets back the very items (and the same
 * events per item) that the recording fake sent and Codex accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { FINAL_ANSWER } from "../helpers/strict-fakes/conversation.ts";
import { DEEPSEEK_REASONING } from "../helpers/strict-fakes/deepseek.ts";
import { CODEX_SCENARIOS, codexReplayHeaders, loadCodexCalls, type CodexCall, type Json } from "../helpers/codex-recordings.ts";
import { checkResponsesStream, gatewayResponsesEvents, parseSseEvents, type CheckedStream } from "../helpers/responses-stream.ts";

const ALL_CALLS: CodexCall[] = CODEX_SCENARIOS.flatMap((scenario) => loadCodexCalls(scenario));
const callOf = (scenario: string, seq: number): CodexCall => {
  const call = ALL_CALLS.find((c) => c.scenario === scenario && c.seq === seq);
  if (!call) throw new Error(`no recorded call ${scenario} #${seq}`);
  return call;
};

/** The model each family's fake is addressed with (DeepSeek's is in thinking mode: it wants reasoning_content back on tool turns). */
const UPSTREAM_MODEL: Record<string, string> = { openai: "gpt-4.1", zhipu: "glm-4.6", deepseek: "deepseek-reasoner" };
const NO_MCP = { "x-mcp-servers": "none" };

async function startFamily(family: string): Promise<{ fake: StrictFake; gw: RunningGateway }> {
  const fake = await startStrictFake(FAMILIES[family]!());
  const target = `p/${UPSTREAM_MODEL[family]}`;
  const gw = await startGateway({
    providers: { p: { type: "openai", baseURL: fake.url, apiKey: "sk-upstream", quirks: family } },
    // The model names Codex sent: one it does not know (glm-4.6) and one of its catalog (gpt-5.5).
    models: { "glm-4.6": { model: target }, "gpt-5.5": { model: target } },
    gateway: { retries: { attempts: 1 } },
  });
  return { fake, gw };
}

interface Replayed {
  status: number;
  headers: Headers;
  text: string;
  /** What the fake received for this request. */
  upstream: Json[];
  /** The headers of those requests. */
  upstreamHeaders: Record<string, string | string[] | undefined>[];
  /** What the fake refused meanwhile. */
  rejections: StrictFake["rejections"];
}

async function replay(gw: RunningGateway, fake: StrictFake, call: CodexCall, body: Json = call.body, extraHeaders: Record<string, string> = NO_MCP): Promise<Replayed> {
  const before = fake.requests.length;
  const refusedBefore = fake.rejections.length;
  const response = await fetch(`${gw.url}/v1/responses`, { method: "POST", headers: codexReplayHeaders(call, extraHeaders), body: JSON.stringify(body) });
  const text = await response.text();
  const received = fake.requests.slice(before);
  return { status: response.status, headers: response.headers, text, upstream: received.map((r) => r.body), upstreamHeaders: received.map((r) => r.headers), rejections: fake.rejections.slice(refusedBefore) };
}

/* ---------------- what the recorded request says, re-derived from its items ---------------- */

const flat = (namespace: string | undefined, name: string) => (namespace ? `${namespace}__${name}` : name);

interface ClientTool {
  kind: "function" | "custom" | "tool_search";
  name: string;
  namespace?: string;
  spec: Json;
}

/** The client's tools the model must be offered, by flat name, in order: the request's (hosted ones and deferred ones out), then those a tool search loaded. */
function offeredClientTools(body: Json): Map<string, ClientTool> {
  const tools = new Map<string, ClientTool>();
  const visit = (tool: Json, loaded: boolean) => {
    const add = (spec: Json, namespace?: string) => {
      const name = flat(namespace, spec.name);
      if (spec.defer_loading === true && !loaded) return;
      if (!tools.has(name)) tools.set(name, { kind: spec.type === "custom" ? "custom" : "function", name: spec.name, ...(namespace ? { namespace } : {}), spec });
    };
    if (tool.type === "function" || tool.type === "custom") add(tool);
    else if (tool.type === "namespace") for (const inner of tool.tools) add(inner, tool.name);
    else if (tool.type === "tool_search") tools.set("tool_search", { kind: "tool_search", name: "tool_search", spec: tool });
  };
  for (const tool of body.tools ?? []) visit(tool, false);
  for (const item of body.input) if (item.type === "tool_search_output") for (const tool of item.tools) visit(tool, true);
  return tools;
}

const hostedTools = (body: Json): string[] => (body.tools ?? []).filter((t: Json) => !["function", "custom", "namespace", "tool_search", "mcp"].includes(t.type)).map((t: Json) => t.type);

type Expected =
  | { role: "system" | "user"; texts: string[] }
  | { role: "assistant"; calls: { id: string; name: string; args: Json }[] }
  | { role: "tool"; id: string; texts: string[] };

const partTexts = (content: Json): string[] => (typeof content === "string" ? [content] : content.map((part: Json) => String(part.text)));

/** The chat conversation the recorded input stands for: one assistant message per model turn (reasoning and calls), one tool message per output. */
function expectedConversation(body: Json): Expected[] {
  const out: Expected[] = [];
  let assistant: Extract<Expected, { role: "assistant" }> | undefined;
  const model = () => {
    if (!assistant) {
      assistant = { role: "assistant", calls: [] };
      out.push(assistant);
    }
    return assistant;
  };
  for (const item of body.input as Json[]) {
    const type = item.type ?? "message";
    if (type !== "reasoning" && !type.endsWith("_call")) assistant = undefined;
    switch (type) {
      case "message":
        if (item.role === "assistant") throw new Error("the recordings hold no assistant message items");
        out.push({ role: item.role === "developer" || item.role === "system" ? "system" : item.role, texts: partTexts(item.content) });
        break;
      case "reasoning":
        model();
        break;
      case "function_call":
        model().calls.push({ id: item.call_id, name: flat(item.namespace, item.name), args: JSON.parse(item.arguments) });
        break;
      case "custom_tool_call":
        model().calls.push({ id: item.call_id, name: item.name, args: { input: item.input } });
        break;
      case "tool_search_call":
        model().calls.push({ id: item.call_id, name: "tool_search", args: item.arguments });
        break;
      case "function_call_output":
      case "custom_tool_call_output":
        out.push({ role: "tool", id: item.call_id, texts: partTexts(item.output) });
        break;
      case "tool_search_output":
        // What was loaded, by the name the model is offered it under.
        out.push({ role: "tool", id: item.call_id, texts: item.tools.flatMap((t: Json) => (t.type === "namespace" ? t.tools.map((inner: Json) => flat(t.name, inner.name)) : [t.name])) });
        break;
      default:
        throw new Error(`the test does not know input item ${type}`);
    }
  }
  return out;
}

/* ---------------- a valid Chat Completions request ---------------- */

const textOf = (content: Json): string => (typeof content === "string" ? content : Array.isArray(content) ? content.map((p: Json) => (p.type === "text" ? p.text : "")).join("") : "");

/** The shape rules of a Chat Completions request body (beyond what the strict fakes enforce). */
function expectValidChatBody(body: Json, model: string): void {
  expect(body.model).toBe(model);
  expect(body.stream).toBe(true);
  expect(body.stream_options).toEqual({ include_usage: true });
  expect(Array.isArray(body.messages) && body.messages.length > 0).toBe(true);
  const answered = new Set<string>();
  let pending: string[] = [];
  for (const [i, m] of (body.messages as Json[]).entries()) {
    const where = `messages[${i}] ${JSON.stringify(m).slice(0, 200)}`;
    expect(["system", "user", "assistant", "tool"], where).toContain(m.role);
    if (m.role !== "tool") expect(pending, `${where}: tool_calls left unanswered`).toEqual([]);
    if (m.role === "system" || m.role === "user") expect(typeof m.content === "string" || Array.isArray(m.content), where).toBe(true);
    if (m.role === "assistant") {
      expect(m.content === null || typeof m.content === "string" || Array.isArray(m.content), where).toBe(true);
      for (const call of m.tool_calls ?? []) {
        expect(call.type, where).toBe("function");
        expect(typeof call.id === "string" && call.id !== "", where).toBe(true);
        expect(typeof call.function?.name, where).toBe("string");
        expect(() => JSON.parse(call.function.arguments), where).not.toThrow();
      }
      pending = (m.tool_calls ?? []).map((c: Json) => c.id);
    }
    if (m.role === "tool") {
      expect(pending, `${where}: a tool message answering no open call`).toContain(m.tool_call_id);
      expect(answered.has(m.tool_call_id), `${where}: answered twice`).toBe(false);
      answered.add(m.tool_call_id);
      pending = pending.filter((id) => id !== m.tool_call_id);
      expect(typeof m.content === "string" || Array.isArray(m.content), where).toBe(true);
    }
  }
  expect(pending, "tool_calls left unanswered at the end").toEqual([]);
  const names = (body.tools ?? []).map((t: Json) => t.function?.name);
  for (const tool of body.tools ?? []) {
    expect(tool.type).toBe("function");
    expect(tool.function.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(tool.function.parameters?.type).toBe("object");
  }
  expect(new Set(names).size, `duplicate tool names: ${names.join(",")}`).toBe(names.length);
  if (body.tool_choice !== undefined || body.parallel_tool_calls !== undefined) expect(names.length).toBeGreaterThan(0);
}

/** The upstream body carries the recorded conversation, converted as `expectedConversation` says. */
function expectConversation(body: Json, recorded: Json, family: string): void {
  const expected = expectedConversation(recorded);
  const messages = body.messages as Json[];
  expect(messages.map((m) => m.role)).toEqual(expected.map((e) => e.role));
  for (const [i, want] of expected.entries()) {
    const got = messages[i];
    const where = `messages[${i}]`;
    if (want.role === "tool") {
      expect(got.tool_call_id, where).toBe(want.id);
      for (const part of want.texts) expect(textOf(got.content), where).toContain(part);
    } else if (want.role === "assistant") {
      expect((got.tool_calls ?? []).map((c: Json) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) })), where).toEqual(want.calls);
      if (family === "deepseek") expect(typeof got.reasoning_content, `${where}: DeepSeek wants reasoning_content on tool turns`).toBe("string");
      if (family === "zhipu") expect(typeof got.content, `${where}: GLM refuses null content`).toBe("string");
    } else {
      // Every text part, in order.
      const text = textOf(got.content);
      let at = 0;
      for (const part of want.texts) {
        const found = text.indexOf(part, at);
        expect(found, `${where}: part ${JSON.stringify(part.slice(0, 80))} missing or out of order`).toBeGreaterThanOrEqual(0);
        at = found + part.length;
      }
    }
  }
}

/** The client's tools, offered as functions: the same definitions under their flat names. */
function expectClientTools(body: Json, recorded: Json, family: string, gatewayTools: string[] = []): void {
  const offered = offeredClientTools(recorded);
  const upstream = new Map<string, Json>((body.tools ?? []).map((t: Json) => [t.function.name, t.function]));
  expect([...upstream.keys()].filter((name) => !gatewayTools.includes(name))).toEqual([...offered.keys()]);
  for (const name of gatewayTools) expect(upstream.has(name), `gateway tool ${name}`).toBe(true);
  for (const hosted of hostedTools(recorded)) expect(upstream.has(hosted)).toBe(false);
  for (const [name, tool] of offered) {
    const fn = upstream.get(name)!;
    if (tool.spec.description !== undefined) expect(fn.description, name).toBe(tool.spec.description);
    if (tool.kind === "custom") {
      // A freeform tool: one string parameter, `input`, that holds the raw text.
      expect(fn.parameters, name).toMatchObject({ type: "object", properties: { input: { type: "string" } }, required: ["input"] });
      expect(Object.keys(fn.parameters.properties), name).toEqual(["input"]);
    } else if (tool.kind === "function" && family === "openai") {
      expect(fn.parameters, name).toEqual(tool.spec.parameters ?? { type: "object", properties: {} });
    }
  }
}

/** The Responses item the client must get for a call the model made to `name` (as offered upstream). */
function expectedClientItem(name: string, offered: Map<string, ClientTool>): Json {
  const tool = offered.get(name);
  if (!tool) throw new Error(`the model called ${name}, which is not one of the client's tools`);
  if (tool.kind === "custom") return { type: "custom_tool_call", name: tool.name };
  if (tool.kind === "tool_search") return { type: "tool_search_call", execution: "client" };
  return { type: "function_call", name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}) };
}

const endsWithOutput = (body: Json) => String(body.input.at(-1)?.type ?? "").endsWith("_output");

function checked(result: Replayed): CheckedStream {
  expect(result.status, result.text.slice(0, 2000)).toBe(200);
  expect(result.headers.get("content-type")).toMatch(/^text\/event-stream/);
  return checkResponsesStream(gatewayResponsesEvents(result.text));
}

/* ---------------- the tests ---------------- */

describe("the recorded answers Codex accepted", () => {
  it.each(ALL_CALLS.map((call) => [call.scenario, call.seq, call] as const))("%s #%i follows the Responses event grammar the gateway is held to", (_s, _n, call) => {
    const stream = checkResponsesStream(parseSseEvents(call.responseSse));
    expect(stream.response.status).toBe("completed");
    expect(stream.doneItems.length).toBeGreaterThan(0);
    expect(stream.overlapped).toBe(false);
  });
});

describe.each(["openai", "zhipu", "deepseek"])("recorded Codex requests through the Responses door to the %s strict fake", (family) => {
  let fake: StrictFake;
  let gw: RunningGateway;
  beforeAll(async () => ({ fake, gw } = await startFamily(family)));
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it.each(ALL_CALLS.map((call) => [call.scenario, call.seq, call] as const))("%s #%i (x-mcp-servers: none)", async (_s, _n, call) => {
    const result = await replay(gw, fake, call);
    expect(result.rejections).toEqual([]);
    expect(result.upstream).toHaveLength(1);
    const body = result.upstream[0];

    expectValidChatBody(body, UPSTREAM_MODEL[family]!);
    expectConversation(body, call.body, family);
    expectClientTools(body, call.body, family);
    expect(result.headers.get("x-mcp-gateway-warning")).toContain('hosted tool "web_search" left out');
    // The provider gets the gateway's key, and none of Codex's session headers.
    const sentHeaders = result.upstreamHeaders[0]!;
    expect(sentHeaders["authorization"]).toBe("Bearer sk-upstream");
    expect(Object.keys(sentHeaders).filter((name) => name.startsWith("x-codex") || ["session-id", "thread-id", "originator", "x-client-request-id"].includes(name))).toEqual([]);

    const stream = checked(result);
    // The model that answered, as the provider named it (not the name Codex asked for).
    expect(stream.response).toMatchObject({ object: "response", status: "completed", model: UPSTREAM_MODEL[family] });
    const items = stream.response.output as Json[];
    // DeepSeek thinks first: its reasoning comes back as a reasoning item holding a gateway token.
    const rest = family === "deepseek" ? items.slice(1) : items;
    if (family === "deepseek") {
      expect(items[0]).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text" }] });
      expect(items[0].encrypted_content).toMatch(/^mcpgw1\./);
    } else {
      expect(items.filter((item) => item.type === "reasoning")).toEqual([]);
    }
    if (endsWithOutput(call.body)) {
      // After the tool results the model answers.
      expect(rest).toHaveLength(1);
      expect(rest[0]).toMatchObject({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: FINAL_ANSWER }] });
    } else {
      // The model called the first two tools it was offered: each comes back as the client declared it.
      const offered = offeredClientTools(call.body);
      const called = (body.tools as Json[]).slice(0, 2).map((t) => t.function.name as string);
      expect(rest.map((item) => item.type)).toEqual(called.map(() => expect.stringMatching(/_call$/)));
      for (const [i, name] of called.entries()) expect(rest[i]).toMatchObject({ ...expectedClientItem(name, offered), status: "completed" });
      expect(new Set(rest.map((item) => item.call_id)).size).toBe(2);
      for (const item of rest) expect(typeof item.call_id === "string" && item.call_id !== "").toBe(true);
    }
  });

  it("answers the same request unstreamed with the response object", async () => {
    const call = callOf("cx-03-gpt-5.5-apply-patch", 2);
    const result = await replay(gw, fake, call, { ...call.body, stream: false });
    expect(result.status, result.text).toBe(200);
    expect(result.rejections).toEqual([]);
    expectConversation(result.upstream[0], call.body, family);
    const response = JSON.parse(result.text);
    expect(response).toMatchObject({ object: "response", status: "completed", model: UPSTREAM_MODEL[family] });
    expect(response.output.at(-1)).toMatchObject({ type: "message", content: [{ type: "output_text", text: FINAL_ANSWER }] });
  });
});

describe("Codex echoes the gateway's own items back (DeepSeek strict fake, thinking mode)", () => {
  let fake: StrictFake;
  let gw: RunningGateway;
  beforeAll(async () => ({ fake, gw } = await startFamily("deepseek")));
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  it.each([
    ["cx-01-glm-4.6-exec", 1],
    ["cx-03-gpt-5.5-apply-patch", 1],
    ["cx-04-mcp-glm-4.6-namespace", 1],
  ] as const)("%s: turn 1's items, echoed as Codex echoes them, restore DeepSeek's reasoning", async (scenario, seq) => {
    const call = callOf(scenario, seq);
    const first = checked(await replay(gw, fake, call));
    const [reasoning, ...calls] = first.response.output as Json[];
    expect(reasoning.type).toBe("reasoning");
    expect(calls.map((c) => c.type)).toEqual(["function_call", "function_call"]);

    // Turn 2 as Codex builds it: the same input, then the items it got (as recorded in cx-01
    // #2: the reasoning item with `content: null`), then one output per call.
    const echoed = [
      { type: "reasoning", id: reasoning.id, summary: reasoning.summary, content: null, encrypted_content: reasoning.encrypted_content },
      ...calls.map((c) => ({ type: "function_call", status: "completed", id: c.id, name: c.name, ...(c.namespace ? { namespace: c.namespace } : {}), arguments: c.arguments, call_id: c.call_id })),
      ...calls.map((c, i) => ({ type: "function_call_output", id: `fco_test_${i}`, call_id: c.call_id, output: `Process exited with code 0\nOutput:\nresult ${i}\n` })),
    ];
    const body = { ...call.body, input: [...call.body.input, ...echoed] };
    const second = await replay(gw, fake, call, body);
    expect(second.rejections).toEqual([]);
    const sent = second.upstream[0];
    expectConversation(sent, body, "deepseek");
    const assistant = (sent.messages as Json[]).at(-3);
    expect(assistant.tool_calls.map((c: Json) => c.id)).toEqual(calls.map((c) => c.call_id));
    // The reasoning DeepSeek gave, restored from the echoed encrypted_content (the gateway keeps no state: store is false).
    expect(assistant.reasoning_content).toBe(DEEPSEEK_REASONING);
    const answer = checked(second);
    expect(answer.response.output.at(-1)).toMatchObject({ type: "message", content: [{ type: "output_text", text: FINAL_ANSWER }] });
  });
});

describe("recorded Codex requests with the gateway's MCP server on (OpenAI strict fake)", () => {
  let fake: StrictFake;
  let gw: RunningGateway;
  beforeAll(async () => ({ fake, gw } = await startFamily("openai")));
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  const gatewayToolsOf = (body: Json): string[] => (body.tools as Json[]).map((t) => t.function.name as string).filter((name) => name.startsWith("everything__"));

  it.each([
    ["cx-04-mcp-glm-4.6-namespace", 2],
    ["cx-05-mcp-gpt-5.5-tool-search", 3],
  ] as const)("%s #%i: the gateway's tools join the client's; the conversation is the same as without them", async (scenario, seq) => {
    const call = callOf(scenario, seq);
    const without = await replay(gw, fake, call);
    const withMcp = await replay(gw, fake, call, call.body, {});
    expect([...without.rejections, ...withMcp.rejections]).toEqual([]);
    expect(withMcp.upstream).toHaveLength(1);
    const body = withMcp.upstream[0];
    expectValidChatBody(body, UPSTREAM_MODEL["openai"]!);
    const gatewayTools = gatewayToolsOf(body);
    expect(gatewayTools).toContain("everything__echo");
    expect(gatewayToolsOf(without.upstream[0])).toEqual([]);
    // Codex's own MCP tool (namespace mcp__echo) and the gateway's echo are two tools.
    expectClientTools(body, call.body, "openai", gatewayTools);
    expect(body.tools.map((t: Json) => t.function.name)).toContain("mcp__echo__echo");
    expect(body.messages).toEqual(without.upstream[0].messages);
    const stream = checked(withMcp);
    expect(stream.response.output).toEqual([expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: FINAL_ANSWER })] })]);
  });

  it("cx-01 #1: calls of the gateway's tools run inside (mcp_call items), calls of Codex's go back to Codex", async () => {
    const call = callOf("cx-01-glm-4.6-exec", 1);
    const result = await replay(gw, fake, call, call.body, {});
    expect(result.rejections).toEqual([]);
    const stream = checked(result);
    const first = result.upstream[0];
    const called = (first.tools as Json[]).slice(0, 2).map((t) => t.function.name as string);
    const offered = offeredClientTools(call.body);
    const expected = called.map((name) =>
      name.startsWith("everything__") ? { type: "mcp_call", server_label: "everything", name: name.slice("everything__".length) } : expectedClientItem(name, offered),
    );
    const items = stream.response.output as Json[];
    expect(items.slice(0, 2)).toMatchObject(expected);
    // No call of a gateway tool reaches the client as its own call.
    expect(items.filter((item) => item.type === "function_call" && String(item.name).startsWith("everything__"))).toEqual([]);
    if (called.every((name) => name.startsWith("everything__"))) {
      // Both ran inside: the model got their results and answered.
      expect(result.upstream).toHaveLength(2);
      const second = result.upstream[1];
      expectValidChatBody(second, UPSTREAM_MODEL["openai"]!);
      expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages);
      const [assistant, ...results] = second.messages.slice(first.messages.length);
      expect(assistant.tool_calls.map((c: Json) => c.function.name)).toEqual(called);
      expect(results.map((m: Json) => m.tool_call_id)).toEqual(assistant.tool_calls.map((c: Json) => c.id));
      expect(items.slice(2)).toEqual([expect.objectContaining({ type: "message", content: [expect.objectContaining({ text: FINAL_ANSWER })] })]);
    }
  });
});

/* ---------------- the model's calls, as the items Codex accepted ---------------- */

/** Event types per output index, runs of the same delta type collapsed (how many deltas is the streamer's business). */
function eventShape(events: { event: string; data: Json }[]): Map<number, string[]> {
  const shape = new Map<number, string[]>();
  for (const { event, data } of events) {
    if (typeof data.output_index !== "number") continue;
    const list = shape.get(data.output_index) ?? [];
    if (list.at(-1) !== event || !event.endsWith(".delta")) list.push(event);
    shape.set(data.output_index, list);
  }
  return shape;
}

/** The item a `.added` event announced, per output index. */
function addedItems(events: { event: string; data: Json }[]): Json[] {
  return events.filter((e) => e.event === "response.output_item.added").map((e) => e.data.item);
}

const withoutId = (item: Json) => ({ ...item, id: expect.any(String) });

describe("the model's calls come back as the very items Codex accepted (scripted OpenAI-chat fake)", () => {
  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai");
    gw = await startGateway({
      mcpServers: {},
      providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
      models: { "glm-4.6": { model: "p/some-model" }, "gpt-5.5": { model: "p/some-model" } },
      gateway: { retries: { attempts: 1 } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  const withCalls = ALL_CALLS.filter((call) => !endsWithOutput(call.body) || call.scenario === "cx-05-mcp-gpt-5.5-tool-search").filter((call) =>
    checkResponsesStream(parseSseEvents(call.responseSse)).doneItems.some((item) => item.type.endsWith("_call")),
  );

  /** Replays the request; the fake makes the recorded answer's calls (and reasoning) under the names it was offered, with the recorded call ids. */
  async function replayWithRecordedCalls(call: CodexCall) {
    const recordedEvents = parseSseEvents(call.responseSse);
    const recorded = checkResponsesStream(recordedEvents).doneItems;
    const reasoning = recorded.find((item) => item.type === "reasoning");
    const calls = recorded
      .filter((item) => item.type.endsWith("_call"))
      .map((item) => ({
        id: item.call_id as string,
        name: item.type === "tool_search_call" ? "tool_search" : flat(item.namespace, item.name),
        arguments: item.type === "custom_tool_call" ? { input: item.input } : item.type === "tool_search_call" ? item.arguments : JSON.parse(item.arguments),
      }));
    const lastRecorded = call.body.input.at(-1);
    upstream.script((request) => {
      // Only the replayed request gets the calls: its last message is the recorded last item.
      const last = request.body.messages.at(-1);
      const same = lastRecorded.type === "message" ? last.role === "user" && textOf(last.content) === partTexts(lastRecorded.content).join("") : last.tool_call_id === lastRecorded.call_id;
      if (!same) return { text: "not the replayed request" };
      return { ...(reasoning ? { reasoning: reasoning.summary.map((s: Json) => s.text).join("") } : {}), calls };
    });
    const response = await fetch(`${gw.url}/v1/responses`, { method: "POST", headers: codexReplayHeaders(call), body: JSON.stringify(call.body) });
    const text = await response.text();
    expect(response.status, text.slice(0, 2000)).toBe(200);
    const events = gatewayResponsesEvents(text);
    const stream = checkResponsesStream(events);
    expect(upstream.chatRequests()).toHaveLength(1);
    return { recordedEvents, recorded, events, stream };
  }

  it.each(withCalls.map((call) => [call.scenario, call.seq, call] as const))("%s #%i: the same items and the same events per item", async (_s, _n, call) => {
    const { recordedEvents, recorded, events, stream } = await replayWithRecordedCalls(call);
    const items = stream.response.output as Json[];
    expect(items.map((item) => item.type)).toEqual(recorded.map((item) => item.type));
    for (const [i, item] of items.entries()) {
      if (item.type === "reasoning") {
        expect(item).toEqual({ ...withoutId(recorded[i]), encrypted_content: expect.stringMatching(/^mcpgw1\./) });
      } else {
        expect(item).toEqual(withoutId(recorded[i]));
      }
    }
    // The same events per item as the recording (how many deltas aside).
    expect([...eventShape(events).entries()]).toEqual([...eventShape(recordedEvents).entries()]);
  });

  it.each(withCalls.map((call) => [call.scenario, call.seq, call] as const))("%s #%i: each item is announced (output_item.added) as OpenAI announces it: in progress, nothing streamed yet", async (_s, _n, call) => {
    const { recordedEvents, events } = await replayWithRecordedCalls(call);
    const added = addedItems(events);
    for (const [i, item] of addedItems(recordedEvents).entries()) {
      // A tool_search_call has no delta events: OpenAI announces it with its arguments, a streamer may add them at .done.
      const expected = item.type === "tool_search_call" ? { ...withoutId(item), arguments: expect.any(Object) } : withoutId(item);
      expect(added[i]).toEqual(expected);
    }
  });
});
