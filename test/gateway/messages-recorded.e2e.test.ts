/**
 * The REAL requests Claude Code 2.1.331 sent (test/fixtures/clients/claude-code, recorded against
 * a fake Anthropic API), replayed through the Messages door `POST /v1/messages?beta=true` with
 * the headers Claude Code sent.
 *
 * - Anthropic upstream (a fake that answers with the exact SSE Claude Code accepted): the body
 *   reaches it unchanged but for `model` and the gateway's MCP tools appended after the client's
 *   (role:"system" messages, cache_control, thinking signatures, `caller`, tool_reference blocks,
 *   metadata, context_management, output_config…), with the beta and version headers; and the
 *   gateway hands back what the recording answered.
 * - OpenAI-protocol upstreams (strict fakes of Zhipu, DeepSeek, OpenAI): a valid Chat Completions
 *   request the fake accepts, with none of Anthropic's fields, the system prompt as a system
 *   message, the client's tools but its deferred ones not yet loaded, plus the MCP tools; and an
 *   answer in Anthropic's event grammar.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import {
  assembleAnthropicStream,
  essentialContent,
  FULL_BODY_SCENARIOS,
  loadRecordedCalls,
  parseSse,
  replayHeaders,
  startReplayingAnthropic,
  type Json,
  type RecordedCall,
  type ReplayingAnthropic,
} from "../helpers/claude-code-recordings.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { FINAL_ANSWER } from "../helpers/strict-fakes/conversation.ts";

const scenarios = FULL_BODY_SCENARIOS.map((name) => ({ name, calls: loadRecordedCalls(name) }));

/** What the door is called with: Claude Code's path, its headers (our own dummy key), and the body as recorded. */
async function replay(url: string, call: RecordedCall, options: { servers?: string; body?: Json; apiKey?: string } = {}): Promise<Response> {
  return fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { ...replayHeaders(call, options.apiKey), ...(options.servers ? { "x-mcp-servers": options.servers } : {}) },
    body: JSON.stringify(options.body ?? call.body),
  });
}

async function expectOk(response: Response, call: RecordedCall): Promise<string> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${call.scenario} #${call.seq}: the gateway answered ${response.status}: ${text}`);
  return text;
}

const isCustom = (tool: Json) => tool.type === undefined || tool.type === null || tool.type === "custom";

/** Tools named in a `tool_reference` anywhere in the history (tool results included). */
function referencedTools(messages: Json[]): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === "object") {
      const block = node as Json;
      if (block.type === "tool_reference") names.add(block.tool_name);
      Object.values(block).forEach(visit);
    }
  };
  visit(messages);
  return names;
}

/** The client's tools a model without tool search is shown: deferred ones only once a tool_reference loaded them. */
function offeredClientTools(body: Json): string[] {
  const loaded = referencedTools(body.messages);
  return (body.tools ?? []).filter((t: Json) => isCustom(t) && (t.defer_loading !== true || loaded.has(t.name))).map((t: Json) => t.name as string);
}

/** JSON with object keys sorted: equal for equal values, whatever the key order (which JSON leaves open). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The first place two JSON values differ, as `path: sent …, recorded …`; undefined when they are equal. */
function firstDifference(a: unknown, b: unknown, path = ""): string | undefined {
  if (canonical(a) === canonical(b)) return undefined;
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference((a as Json)[key], (b as Json)[key], `${path}.${key}`);
      if (found) return found;
    }
  }
  const show = (v: unknown) => (v === undefined ? "(missing)" : JSON.stringify(v).slice(0, 200));
  return `${path || "(root)"}: sent ${show(a)}, recorded ${show(b)}`;
}

/** Every key of a JSON value, however deep. */
function keysDeep(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) keysDeep(item, into);
  else if (value && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      into.add(key);
      keysDeep(child, into);
    }
  }
  return into;
}

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((part: Json) => (typeof part === "string" ? part : (part.text ?? ""))).join("\n") : "";

/* ====================================================================================== */

describe("recorded Claude Code requests through the Messages door to an Anthropic upstream", () => {
  let upstream: ReplayingAnthropic;
  let gw: RunningGateway;

  beforeAll(async () => {
    upstream = await startReplayingAnthropic();
    gw = await startGateway({
      providers: { claude: { type: "anthropic", baseURL: upstream.url, apiKey: "sk-ant-upstream-key" } },
      // The more specific pattern wins for Claude names; anything else (glm-4.6) takes "*".
      models: { "claude-*": { model: "claude/claude-routed-1" }, "*": { model: "claude/any-routed-1" } },
      gateway: { retries: { attempts: 1 } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
  });

  const routedModel = (requested: string) => (requested.startsWith("claude-") ? "claude-routed-1" : "any-routed-1");

  /** The one request the upstream got for `call`: the recorded body but for model and the appended MCP tools; the headers forwarded. */
  function expectFaithful(call: RecordedCall, mcp: boolean, compare: (body: Json) => Json = (body) => body): void {
    const sent = upstream.messageRequests();
    expect(sent, `${call.scenario} #${call.seq}: exactly one upstream call`).toHaveLength(1);
    const { model, tools, ...rest } = sent[0]!.body;
    const { model: requested, tools: clientTools, ...recordedRest } = call.body;
    expect(model).toBe(routedModel(requested));
    // Everything else exactly as Claude Code sent it: system blocks and cache_control, the
    // role:"system" message, thinking with its signatures, `caller`, tool_reference blocks,
    // metadata, thinking, context_management, output_config, max_tokens, stream.
    const difference = firstDifference(compare(rest), compare(recordedRest));
    expect(difference === undefined, `${call.scenario} #${call.seq}: the body Anthropic got differs from Claude Code's at ${difference}`).toBe(true);
    expect(compare(rest)).toStrictEqual(compare(recordedRest));
    // The client's tools first, exactly as sent (defer_loading included); the gateway's after them.
    expect(tools.slice(0, clientTools.length)).toStrictEqual(clientTools);
    const added = tools.slice(clientTools.length);
    if (mcp) {
      expect(added.map((t: Json) => t.name)).toContain("everything__echo");
      for (const tool of added) {
        expect(tool).toMatchObject({ name: expect.stringMatching(/^everything__/), input_schema: expect.objectContaining({ type: "object" }) });
        expect(clientTools.map((t: Json) => t.name)).not.toContain(tool.name);
      }
    } else {
      expect(added).toStrictEqual([]);
    }
    const headers = sent[0]!.headers;
    expect(headers["anthropic-beta"]).toBe(call.headers["anthropic-beta"]);
    expect(headers["anthropic-version"]).toBe(call.headers["anthropic-version"]);
    // The provider's key from the gateway config (as x-api-key or a bearer token, the SDK's choice), never the client's.
    expect(headers["x-api-key"] ?? headers["authorization"]).toMatch(/^(Bearer )?sk-ant-upstream-key$/);
    expect(JSON.stringify(headers)).not.toContain("sk-ant-client");
  }

  /** The gateway's answer to `call`: a valid Anthropic stream (or Message) holding what Claude Code accepted from the recording. */
  function expectRecordedAnswer(call: RecordedCall, text: string, stream: boolean): void {
    const got = stream ? assembleAnthropicStream(parseSse(text)).message : JSON.parse(text);
    const recorded = assembleAnthropicStream(parseSse(call.responseSse)).message;
    expect(got).toMatchObject({ type: "message", role: "assistant", model: call.body.model, stop_reason: recorded.stop_reason });
    expect(essentialContent(got.content)).toStrictEqual(essentialContent(recorded.content));
  }

  let keys = 0;
  /** A client key never used before: the gateway holds no steps of an earlier answer for it. */
  const freshKey = () => `sk-ant-client-fresh-${++keys}`;

  const serverModes = [
    { label: "with the MCP servers", servers: undefined },
    { label: "with x-mcp-servers: none", servers: "none" },
  ];

  describe.each(scenarios)("$name", ({ calls }) => {
    it.each(serverModes)("streamed, each request on its own, $label: the body reaches Anthropic unchanged and the recorded answer comes back", async ({ servers }) => {
      expect(calls.length).toBeGreaterThan(0);
      for (const call of calls) {
        expect(call.body.stream).toBe(true);
        upstream.answerWith(call.responseSse);
        const response = await replay(gw.url, call, { servers, apiKey: freshKey() });
        const text = await expectOk(response, call);
        expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
        expectFaithful(call, servers === undefined);
        expectRecordedAnswer(call, text, true);
      }
    });

    // As Claude Code runs it: one client, each request after the gateway answered the one before
    // (the gateway has handed the recorded tool_use back itself, and remembers that turn).
    it.each(serverModes)("streamed, the conversation in order from one client, $label: every request reaches Anthropic unchanged", async ({ servers }) => {
      const apiKey = freshKey();
      for (const call of calls) {
        upstream.answerWith(call.responseSse);
        const response = await replay(gw.url, call, { servers, apiKey });
        const text = await expectOk(response, call);
        expectFaithful(call, servers === undefined);
        expectRecordedAnswer(call, text, true);
      }
    });

    it("not streamed (Claude Code's fallback, stream:false), each request on its own: unchanged body, the same answer as a Message", async () => {
      for (const call of calls) {
        upstream.answerWith(call.responseSse);
        const body = { ...call.body, stream: false };
        const response = await replay(gw.url, call, { body, apiKey: freshKey() });
        const text = await expectOk(response, call);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        // `stream:false` may travel as sent or be left out (the official SDKs leave it out): the same request.
        expectFaithful({ ...call, body }, true, ({ stream, ...rest }) => {
          expect(stream === undefined || stream === false).toBe(true);
          return rest;
        });
        expectRecordedAnswer(call, text, false);
      }
    });
  });

  it("thinking.block_binding added to a recorded request is taken out without its beta, and kept with it", async () => {
    const call = scenarios[0]!.calls[0]!;
    const thinking = { ...call.body.thinking, block_binding: { prefix_mismatch_behavior: "drop_block" } };
    const body = { ...call.body, thinking };
    upstream.answerWith(call.responseSse);
    await expectOk(await replay(gw.url, call, { body, servers: "none", apiKey: freshKey() }), call);
    expect(upstream.messageRequests()[0]!.body.thinking).toStrictEqual(call.body.thinking);

    const beta = `${call.headers["anthropic-beta"]},thinking-binding-controls-2026-08-01`;
    const withBeta = { ...call, headers: { ...call.headers, "anthropic-beta": beta } };
    upstream.answerWith(call.responseSse);
    await expectOk(await replay(gw.url, withBeta, { body, servers: "none", apiKey: freshKey() }), call);
    const sent = upstream.messageRequests()[0]!;
    expect(sent.body.thinking).toStrictEqual(thinking);
    expect(sent.headers["anthropic-beta"]).toBe(beta);
  });
});

/* ====================================================================================== */

const OPENAI_FAMILIES = [
  // The quirk preset, and a model of that family that is strict about what it gets.
  { preset: "zhipu", model: "glm-4.6" },
  // Thinking mode: wants the reasoning of tool-call turns back.
  { preset: "deepseek", model: "deepseek-reasoner" },
  { preset: "openai", model: "gpt-4.1" },
  // A reasoning model: refuses `max_tokens` (max_completion_tokens only), takes reasoning_effort.
  { preset: "openai", model: "gpt-5.5" },
];

/** Top-level fields of Anthropic's protocol that no Chat Completions provider takes. */
const ANTHROPIC_ONLY_FIELDS = ["system", "context_management", "output_config", "metadata", "stop_sequences", "top_k", "max_tokens_to_sample"];
/** Keys of Anthropic's protocol that must not appear anywhere in a Chat Completions body. */
const ANTHROPIC_ONLY_KEYS = ["cache_control", "defer_loading", "caller", "signature", "input_schema", "tool_use_id"];

describe.each(OPENAI_FAMILIES)("recorded Claude Code requests through the Messages door to preset $preset, model $model (OpenAI protocol)", ({ preset, model }) => {
  let fake: StrictFake;
  let gw: RunningGateway;

  beforeAll(async () => {
    fake = await startStrictFake(FAMILIES[preset]!());
    gw = await startGateway({
      providers: { p: { type: "openai", baseURL: fake.url, apiKey: "k", quirks: preset } },
      models: { "*": { model: `p/${model}` } },
      gateway: { retries: { attempts: 1 } },
    });
  });
  afterAll(async () => {
    await gw?.close();
    await fake?.close();
  });

  /** Checks one Chat Completions request the fake got for `call`. */
  function expectChatRequest(call: RecordedCall, sent: { body: Json; headers: Record<string, unknown>; path: string }, mcp: boolean): void {
    const body = sent.body;
    const where = `${call.scenario} #${call.seq} -> ${preset}`;
    expect(sent.path, where).toBe("/v1/chat/completions");
    expect(body.model, where).toBe(model);
    for (const field of ANTHROPIC_ONLY_FIELDS) expect(Object.keys(body), `${where}: top-level "${field}"`).not.toContain(field);
    // Anthropic's `thinking` never goes out; GLM's own switch of the same name may (Claude Code asked for thinking).
    if (preset === "zhipu") expect(body.thinking, where).toStrictEqual({ type: "enabled" });
    else expect(Object.keys(body), `${where}: top-level "thinking"`).not.toContain("thinking");
    // The token limit travels, in the field the model takes.
    if (/^gpt-5/.test(model)) {
      expect(body.max_tokens, `${where}: max_tokens to a reasoning model`).toBeUndefined();
      expect(body.max_completion_tokens, where).toBe(call.body.max_tokens);
      expect(["low", "medium", "high", "xhigh", "max", "minimal"], where).toContain(body.reasoning_effort);
    } else {
      expect(body.max_tokens, where).toBe(call.body.max_tokens);
      expect(body.reasoning_effort, where).toBeUndefined();
    }
    const keys = keysDeep(body);
    for (const key of ANTHROPIC_ONLY_KEYS) expect(keys.has(key), `${where}: key "${key}" somewhere in the body`).toBe(false);
    for (const header of ["anthropic-beta", "anthropic-version", "anthropic-dangerous-direct-browser-access", "x-api-key"]) {
      expect(sent.headers[header], `${where}: header ${header}`).toBeUndefined();
    }
    expect(sent.headers["authorization"]).toBe("Bearer k");

    // Only Chat Completions roles, and the system prompt as the first, system, message.
    const messages: Json[] = body.messages;
    for (const message of messages) expect(["system", "user", "assistant", "tool"], where).toContain(message.role);
    expect(messages[0].role, where).toBe("system");
    const systemTexts = typeof call.body.system === "string" ? [call.body.system] : call.body.system.map((b: Json) => b.text as string);
    const firstSystem = textOf(messages[0].content);
    for (const text of systemTexts) expect(firstSystem.includes(text), `${where}: system block ${JSON.stringify(text.slice(0, 60))}… in the system message`).toBe(true);
    // Claude Code's role:"system" messages keep their text, as system content.
    const allSystem = messages.filter((m) => m.role === "system").map((m) => textOf(m.content)).join("\n");
    for (const message of call.body.messages.filter((m: Json) => m.role === "system")) {
      const text = textOf(message.content);
      expect(allSystem.includes(text), `${where}: the role:"system" message's text`).toBe(true);
    }
    // The recorded tool round trips: each tool_use went out as a tool call, answered by its tool message.
    const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.tool_calls ?? []) : []));
    const recordedUses = call.body.messages.flatMap((m: Json) => (m.role === "assistant" && Array.isArray(m.content) ? m.content.filter((b: Json) => b.type === "tool_use") : []));
    expect(calls.map((c: Json) => c.function.name), where).toEqual(recordedUses.map((u: Json) => u.name));
    expect(calls.map((c: Json) => JSON.parse(c.function.arguments)), where).toEqual(recordedUses.map((u: Json) => u.input));
    expect(messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id), where).toEqual(calls.map((c: Json) => c.id));

    // The client's tools (in its order) but the deferred ones not loaded yet, plus the MCP tools.
    const offered: string[] = (body.tools ?? []).map((t: Json) => {
      expect(t.type).toBe("function");
      return t.function.name as string;
    });
    const clientOffered = offeredClientTools(call.body);
    expect(offered.filter((name) => !name.startsWith("everything__")), where).toEqual(clientOffered);
    expect(offered, where).not.toContain("DeferredToolPlaceholder");
    const mcpNames = offered.filter((name) => name.startsWith("everything__"));
    if (mcp) expect(mcpNames, where).toContain("everything__echo");
    else expect(mcpNames, where).toEqual([]);
    for (const tool of body.tools ?? []) {
      const client = call.body.tools.find((t: Json) => t.name === tool.function.name);
      if (!client) continue;
      expect(tool.function.description, `${where}: ${client.name}`).toBe(client.description);
      expect(Object.keys(tool.function.parameters.properties ?? {}).sort(), `${where}: ${client.name}`).toEqual(Object.keys(client.input_schema.properties ?? {}).sort());
    }
  }

  function expectAnswer(call: RecordedCall, message: Json, names: string[], mcp: boolean): void {
    const where = `${call.scenario} #${call.seq} <- ${preset}`;
    for (const block of message.content) if (block.type === "thinking") expect(block.signature, where).toMatch(/\S/);
    if (mcp) {
      // The fakes call the first two tools offered: MCP tools run inside (and are not shown), Claude Code's come back.
      expect(["tool_use", "end_turn"], where).toContain(message.stop_reason);
      for (const use of message.content.filter((b: Json) => b.type === "tool_use")) expect(names, where).toContain(use.name);
      if (message.stop_reason === "end_turn") expect(message.content.some((b: Json) => b.type === "text" && b.text !== ""), where).toBe(true);
      return;
    }
    const last = call.body.messages.at(-1);
    const endsWithToolResult = Array.isArray(last.content) && last.content.every((b: Json) => b.type === "tool_result");
    if (endsWithToolResult) {
      // The strict fakes answer once given the tool results.
      expect(message.stop_reason, where).toBe("end_turn");
      expect(message.content.filter((b: Json) => b.type === "text").map((b: Json) => b.text).join(""), where).toBe(FINAL_ANSWER);
    } else {
      // Otherwise they call the first two tools offered; Claude Code's tools come back as tool_use.
      const uses = message.content.filter((b: Json) => b.type === "tool_use");
      expect(message.stop_reason, where).toBe("tool_use");
      expect(uses.length, where).toBeGreaterThan(0);
      for (const use of uses) {
        expect(names, where).toContain(use.name);
        expect(use.id, where).toMatch(/^\S+$/);
        expect(use.input, where).toBeTypeOf("object");
      }
    }
  }

  describe.each(scenarios)("$name", ({ calls }) => {
    it.each([
      { label: "streamed, with the MCP servers", stream: true, servers: undefined },
      { label: "streamed, with x-mcp-servers: none", stream: true, servers: "none" },
      { label: "not streamed, with x-mcp-servers: none", stream: false, servers: "none" },
    ])("$label: a valid Chat Completions request the provider accepts, and an Anthropic answer", async ({ stream, servers }) => {
      for (const call of calls) {
        const seen = fake.requests.length;
        const refused = fake.rejections.length;
        const body = { ...call.body, stream };
        const response = await replay(gw.url, call, { servers, body });
        const text = await expectOk(response, call);
        expect(fake.rejections.slice(refused), `${call.scenario} #${call.seq}: refused by the ${preset} fake`).toEqual([]);
        const sent = fake.requests.slice(seen);
        expect(sent.length).toBeGreaterThan(0);
        if (servers === "none") expect(sent).toHaveLength(1);
        // Claude Code sends no server tools and nothing the neutral model cannot hold.
        expect(response.headers.get("x-mcp-gateway-warning")).toBeNull();
        expectChatRequest(call, sent[0]!, servers === undefined);
        const names = offeredClientTools(call.body);
        if (stream) {
          expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
          const { message, types } = assembleAnthropicStream(parseSse(text));
          expect(types[0]).toBe("message_start");
          expect(types.slice(-2)).toEqual(["message_delta", "message_stop"]);
          // The model that answered, as the provider named it (not the name Claude Code asked for).
          expect(message.model).toBe(sent[0]!.body.model);
          expectAnswer(call, message, names, servers === undefined);
        } else {
          const message = JSON.parse(text);
          expect(message).toMatchObject({ type: "message", role: "assistant", model: sent[0]!.body.model });
          expectAnswer(call, message, names, servers === undefined);
        }
      }
    });
  });

  it("cc-08: the deferred MCP tool is offered only once a tool_reference to it is in the history", async () => {
    const calls = scenarios.find((s) => s.name === "cc-08-mcp-toolsearch")!.calls;
    expect(calls).toHaveLength(3);
    const offered: string[][] = [];
    for (const call of calls) {
      const seen = fake.requests.length;
      const response = await replay(gw.url, call, { servers: "none" });
      await expectOk(response, call);
      offered.push(fake.requests[seen]!.body.tools.map((t: Json) => t.function.name));
    }
    // Request 1: the tool is not loaded (nor listed); requests 2 and 3 list it with defer_loading and hold its tool_reference.
    expect(offered[0]).not.toContain("mcp__echo__echo");
    expect(calls[1]!.body.tools.find((t: Json) => t.name === "mcp__echo__echo")).toMatchObject({ defer_loading: true });
    expect(offered[1]).toContain("mcp__echo__echo");
    expect(offered[2]).toContain("mcp__echo__echo");
    // The ToolSearch result (a tool_reference) reaches the model as text in the tool message.
    const third = fake.requests.at(-1)!.body.messages;
    const toolMessages = third.filter((m: Json) => m.role === "tool").map((m: Json) => textOf(m.content));
    expect(toolMessages).toHaveLength(2);
    expect(toolMessages[0]).toContain("mcp__echo__echo");
    expect(toolMessages[1]).toContain("echo: ping from fake");
    // The first request's history (no tool_reference yet) with the deferred tool listed: not offered.
    const early = { ...calls[0]!.body, tools: calls[1]!.body.tools };
    const seen = fake.requests.length;
    await expectOk(await replay(gw.url, calls[0]!, { servers: "none", body: early }), calls[0]!);
    const earlyNames = fake.requests[seen]!.body.tools.map((t: Json) => t.function.name);
    expect(earlyNames).not.toContain("mcp__echo__echo");
    expect(earlyNames).toEqual(offeredClientTools(early));
    for (const names of offered) expect(names).not.toContain("DeferredToolPlaceholder");
  });

  it("an Anthropic server tool added to a recorded request is left out, with a warning header", async () => {
    const call = scenarios[0]!.calls[0]!;
    const seen = fake.requests.length;
    const body = { ...call.body, tools: [...call.body.tools, { type: "web_search_20250305", name: "web_search", max_uses: 2 }] };
    const response = await replay(gw.url, call, { servers: "none", body });
    await expectOk(response, call);
    expect(response.headers.get("x-mcp-gateway-warning")).toMatch(/web_search/);
    const sent = fake.requests[seen]!.body;
    expect(sent.tools.map((t: Json) => t.function.name)).not.toContain("web_search");
    expect(sent.tools.map((t: Json) => t.function.name)).toEqual(offeredClientTools(call.body));
  });
});
