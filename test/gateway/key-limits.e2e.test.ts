/**
 * Keys with limits (gateway.apiKeys entries as objects): rpm and tpm with OpenAI's
 * x-ratelimit-* headers and a 429 with retry-after in each door's error shape; a key's models
 * and MCP servers (403 outside them, /v1/models and /mcp showing only what it may use).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { openAiDuration } from "../../src/gateway/shared/key-limits.ts";
import { npmServer, startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { connectHttp } from "../helpers/mcp-gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const PLAIN = "plain-key-0001";
const CHAT = "chat-key-0002";
const MESSAGES = "messages-key-0003";
const RESPONSES = "responses-key-0004";
const TOKENS = "tokens-key-0005";
const SCOPED = "scoped-key-0006";
const MCP_RPM = "mcp-rpm-key-0007";

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let memoryDir: string;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  memoryDir = mkdtempSync(join(tmpdir(), "key-limits-"));
  gw = await startGateway(
    {
      mcpServers: {
        everything: npmServer("server-everything"),
        memory: { ...npmServer("server-memory"), env: { MEMORY_FILE_PATH: join(memoryDir, "memory.jsonl") } },
      },
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k", models: ["allowed-1", "other-1"] } },
      models: { default: { model: "fake/m" }, secret: { model: "fake/s" } },
      gateway: {
        apiKeys: [
          "${PLAIN_KEY}",
          { key: "${CHAT_KEY}", name: "chat-team", rpm: 2 },
          { key: MESSAGES, name: "messages-team", rpm: 2 },
          { key: RESPONSES, name: "responses-team", rpm: 2 },
          { key: TOKENS, name: "tokens-team", tpm: 30 },
          { key: SCOPED, name: "scoped", models: ["default", "fake/allowed-*"], mcpServers: ["memory"] },
          { key: MCP_RPM, name: "mcp-team", rpm: 1 },
        ],
        retries: { attempts: 1 },
      },
    },
    { env: { PLAIN_KEY: PLAIN, CHAT_KEY: CHAT } },
  );
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  rmSync(memoryDir, { recursive: true, force: true });
});
beforeEach(() => upstream.script([{ text: "ok" }]));

const post = (path: string, key: string, body: object, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers }, body: JSON.stringify(body) });
const get = (path: string, key: string, headers: Record<string, string> = {}) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } });

const chatBody = (extra: object = {}) => ({ model: "fake/m", messages: [{ role: "user", content: "hi" }], ...extra });
const messagesBody = { model: "fake/m", max_tokens: 50, messages: [{ role: "user", content: "hi" }] };
const responsesBody = { model: "fake/m", input: "hi" };
const RESET = /^(\d+ms|\d+(\.\d+)?s|1m0s)$/;

function requestHeaders(response: Response) {
  return {
    limit: response.headers.get("x-ratelimit-limit-requests"),
    remaining: response.headers.get("x-ratelimit-remaining-requests"),
    reset: response.headers.get("x-ratelimit-reset-requests"),
  };
}

/** rpm 2: two requests through with the headers counting down, the third a 429 with retry-after. */
async function expectRpm(send: () => Promise<Response>): Promise<Response> {
  for (const remaining of ["1", "0"]) {
    const ok = await send();
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    expect(requestHeaders(ok)).toMatchObject({ limit: "2", remaining });
    expect(requestHeaders(ok).reset).toMatch(RESET);
  }
  const refused = await send();
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  expect(requestHeaders(refused)).toMatchObject({ limit: "2", remaining: "0" });
  expect(requestHeaders(refused).reset).toMatch(RESET);
  expect(upstream.chatRequests()).toHaveLength(2);
  return refused;
}

describe("config", () => {
  it("takes key objects beside plain strings", () => {
    const config = resolveConfig(
      {
        mcpServers: { files: { command: "x" } },
        gateway: { apiKeys: ["${A}", { key: "${B}", name: "team-a", rpm: 600, tpm: 200000, models: ["default", "anthropic/*"], mcpServers: ["files"] }, { key: "k3" }] },
      },
      { A: "key-a", B: "key-b" },
    );
    expect(config.gateway.apiKeys).toEqual(["key-a", "key-b", "k3"]);
    expect(config.gateway.keyPolicies).toEqual([
      { key: "key-a", name: "key #1" },
      { key: "key-b", name: "team-a", rpm: 600, tpm: 200000, models: ["default", "anthropic/*"], mcpServers: ["files"] },
      { key: "k3", name: "key #3" },
    ]);
  });

  it("names the bad field of a key object", () => {
    expect(() => resolveConfig({ gateway: { apiKeys: [{ key: "${UNSET_KEY}", rpm: 5 }] } }, {})).toThrow(/gateway\.apiKeys\[0\]\.key: .*UNSET_KEY is not set/);
    expect(() => resolveConfig({ gateway: { apiKeys: [{ key: "k", rpmm: 5 }] } }, {})).toThrow(/gateway\.apiKeys\[0\]\.rpmm: unknown key "rpmm" \(did you mean "rpm"\?\)/);
    expect(() => resolveConfig({ gateway: { apiKeys: [{ key: "k", tpm: 0 }] } }, {})).toThrow(/gateway\.apiKeys\[0\]\.tpm/);
    expect(() => resolveConfig({ mcpServers: {}, gateway: { apiKeys: [{ key: "k", mcpServers: ["nope"] }] } }, {})).toThrow(/gateway\.apiKeys\[0\]\.mcpServers\[0\]: unknown MCP server "nope"/);
    expect(() => resolveConfig({ gateway: { apiKeys: ["k", { key: "k", rpm: 1 }] } }, {})).toThrow(/gateway\.apiKeys\[1\]: the same key as gateway\.apiKeys\[0\]/);
    expect(() => resolveConfig({ gateway: { apiKeys: [5] } }, {})).toThrow(/gateway\.apiKeys\[0\]: expected string or object/);
  });

  it("writes reset durations as OpenAI does", () => {
    expect([openAiDuration(17), openAiDuration(1000), openAiDuration(8640), openAiDuration(60_000), openAiDuration(360_000), openAiDuration(3_723_000)]).toEqual([
      "17ms",
      "1s",
      "8.64s",
      "1m0s",
      "6m0s",
      "1h2m3s",
    ]);
  });
});

describe("rpm", () => {
  it("Chat Completions: exactly rpm requests, then 429 in OpenAI's shape", async () => {
    const refused = await expectRpm(() => post("/v1/chat/completions", CHAT, chatBody()));
    expect(await refused.json()).toEqual({
      error: { message: expect.stringMatching(/Rate limit reached for the API key "chat-team": 2 requests per minute/), type: "rate_limit_error", param: null, code: "rate_limit_exceeded" },
    });
    // Routes that call no model carry the headers but do not count.
    const models = await get("/v1/models", CHAT);
    expect(models.status).toBe(200);
    expect(requestHeaders(models)).toMatchObject({ limit: "2", remaining: "0" });
    // A plain key has no limits and no headers.
    const plain = await post("/v1/chat/completions", PLAIN, chatBody());
    expect(plain.status).toBe(200);
    expect(plain.headers.get("x-ratelimit-limit-requests")).toBeNull();
  });

  it("Messages: 429 in Anthropic's shape", async () => {
    const refused = await expectRpm(() => post("/v1/messages", MESSAGES, messagesBody, { "anthropic-version": "2023-06-01" }));
    expect(await refused.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error", message: expect.stringContaining('"messages-team"') } });
  });

  it("Responses: likewise, streamed requests counted", async () => {
    let n = 0;
    const refused = await expectRpm(() => post("/v1/responses", RESPONSES, { ...responsesBody, stream: n++ === 1 }));
    expect(await refused.json()).toMatchObject({ error: { type: "rate_limit_error", code: "rate_limit_exceeded" } });
  });
});

describe("tpm", () => {
  it("counts the tokens the provider reported (streamed too) and refuses once the minute's are used", async () => {
    // The scripted provider reports 11 input + 7 output tokens per call; tpm is 30.
    const first = await post("/v1/chat/completions", TOKENS, chatBody());
    expect(first.status).toBe(200);
    expect(first.headers.get("x-ratelimit-limit-tokens")).toBe("30");
    expect(first.headers.get("x-ratelimit-remaining-tokens")).toBe("30");
    expect(first.headers.get("x-ratelimit-limit-requests")).toBeNull();
    const second = await post("/v1/chat/completions", TOKENS, chatBody({ stream: true }));
    expect(second.status).toBe(200);
    expect(second.headers.get("x-ratelimit-remaining-tokens")).toBe("12");
    expect(await second.text()).toContain("[DONE]");
    const third = await post("/v1/messages", TOKENS, messagesBody);
    expect(third.status).toBe(429);
    expect(third.headers.get("x-ratelimit-remaining-tokens")).toBe("0");
    expect(third.headers.get("x-ratelimit-reset-tokens")).toMatch(RESET);
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await third.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error", message: expect.stringContaining("30 tokens per minute") } });
    expect(upstream.chatRequests()).toHaveLength(2);
  });
});

describe("a key's models and MCP servers", () => {
  it("refuses a model outside the key with 403, naming the models it may use", async () => {
    const refused = await post("/v1/chat/completions", SCOPED, chatBody({ model: "secret" }));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: { message: 'The API key "scoped" may not use the model "secret"; it may use: default, fake/allowed-*', type: "permission_error", param: "model", code: "model_not_allowed" },
    });
    const anthropic = await post("/v1/messages", SCOPED, { ...messagesBody, model: "fake/other-1" });
    expect(anthropic.status).toBe(403);
    expect(await anthropic.json()).toMatchObject({ type: "error", error: { type: "permission_error", message: expect.stringContaining("it may use: default, fake/allowed-*") } });
    expect((await post("/v1/responses", SCOPED, { ...responsesBody, model: "fake/m" })).status).toBe(403);
    expect(upstream.chatRequests()).toHaveLength(0);
    expect((await post("/v1/chat/completions", SCOPED, chatBody({ model: "fake/allowed-1" }))).status).toBe(200);
    expect((await post("/v1/chat/completions", SCOPED, chatBody({ model: "default" }))).status).toBe(200);
    // Every model for a key without `models`.
    expect((await post("/v1/chat/completions", PLAIN, chatBody({ model: "secret" }))).status).toBe(200);
  });

  it("offers only the key's servers' tools, and refuses a selection outside them with 403", async () => {
    expect((await post("/v1/chat/completions", SCOPED, chatBody({ model: "default" }))).status).toBe(200);
    const names = (upstream.chatRequests()[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names.length).toBeGreaterThan(0);
    expect(names.every((name) => name.startsWith("memory__"))).toBe(true);

    const header = await post("/v1/chat/completions", SCOPED, chatBody({ model: "default" }), { "x-mcp-servers": "memory,everything" });
    expect(header.status).toBe(403);
    expect(await header.json()).toMatchObject({ error: { type: "permission_error", code: "mcp_server_not_allowed", param: "x-mcp-servers", message: expect.stringMatching(/"everything"; it may use: memory$/) } });
    const responses = await post("/v1/responses", SCOPED, { model: "default", input: "hi", tools: [{ type: "mcp", server_label: "everything", require_approval: "never" }] });
    expect(responses.status).toBe(403);
    expect(await responses.json()).toMatchObject({ error: { type: "permission_error", message: expect.stringContaining("it may use: memory") } });
    expect((await post("/v1/chat/completions", SCOPED, chatBody({ model: "default" }), { "x-mcp-servers": "memory" })).status).toBe(200);
    // A key without mcpServers gets every server.
    upstream.script([{ text: "ok" }]);
    expect((await post("/v1/chat/completions", PLAIN, chatBody())).status).toBe(200);
    expect((upstream.chatRequests()[0]!.body.tools as { function: { name: string } }[]).some((t) => t.function.name.startsWith("everything__"))).toBe(true);
  });

  it("/v1/models lists only the key's models", async () => {
    const ids = async (key: string, headers: Record<string, string> = {}) => ((await (await get("/v1/models", key, headers)).json()) as { data: { id: string }[] }).data.map((m) => m.id);
    expect(await ids(PLAIN)).toEqual(["default", "secret", "fake/allowed-1", "fake/other-1"]);
    expect(await ids(SCOPED)).toEqual(["default", "fake/allowed-1"]);
    expect(await ids(SCOPED, { "anthropic-version": "2023-06-01" })).toEqual(["default", "fake/allowed-1"]);
    const retrieve = await get("/v1/models/secret", SCOPED);
    expect(retrieve.status).toBe(403);
    expect(await retrieve.json()).toMatchObject({ error: { type: "permission_error", code: "model_not_allowed" } });
    expect((await get("/v1/models/fake%2Fallowed-1", SCOPED)).status).toBe(200);
  });

  it("/mcp shows a key only its servers' tools and refuses a call to another server's", async () => {
    const url = new URL(`${gw.url}/mcp`);
    const scoped = await connectHttp(url, { headers: { authorization: `Bearer ${SCOPED}` } });
    const plain = await connectHttp(url, { headers: { authorization: `Bearer ${PLAIN}` } });
    try {
      const names = (await scoped.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("memory__read_graph");
      expect(names).toContain("chat");
      expect(names.filter((name) => !name.startsWith("memory__") && name !== "chat" && name !== "steer")).toEqual([]);
      expect((await plain.client.listTools()).tools.map((t) => t.name)).toContain("everything__echo");

      const refused = scoped.client.callTool({ name: "everything__echo", arguments: { message: "hi" } });
      await expect(refused).rejects.toBeInstanceOf(McpError);
      await expect(refused).rejects.toThrow(/may not use the MCP server "everything"; it may use: memory/);
      const allowed = await scoped.client.callTool({ name: "memory__read_graph", arguments: {} });
      expect(allowed.isError).toBeFalsy();
      expect((await plain.client.callTool({ name: "everything__echo", arguments: { message: "hi" } })).isError).toBeFalsy();

      // everything's resources and prompts are not the key's either; memory's are.
      const everything = (await plain.client.listResources()).resources.filter((r) => !r.uri.startsWith("memory://"));
      expect(everything.length).toBeGreaterThan(0);
      const mine = (await scoped.client.listResources()).resources.map((r) => r.uri);
      expect(mine).toContain("memory://knowledge-graph");
      expect(mine.filter((uri) => !uri.startsWith("memory://"))).toEqual([]);
      expect((await plain.client.listPrompts()).prompts.some((p) => p.name.startsWith("everything__"))).toBe(true);
      expect((await scoped.client.listPrompts()).prompts.filter((p) => !p.name.startsWith("memory__"))).toEqual([]);
      const uri = everything[0]!.uri;
      await expect(scoped.client.readResource({ uri })).rejects.toThrow(/may not use the MCP server "everything"/);

      // The chat tool: only the key's models, only its servers.
      const model = await scoped.client.callTool({ name: "chat", arguments: { prompt: "hi", model: "secret" } });
      expect(model.isError).toBe(true);
      expect(JSON.stringify(model.content)).toContain('may not use the model \\"secret\\"; it may use: default, fake/allowed-*');
      const servers = await scoped.client.callTool({ name: "chat", arguments: { prompt: "hi", mcpServers: ["everything"] } });
      expect(servers.isError).toBe(true);
      const answered = await scoped.client.callTool({ name: "chat", arguments: { prompt: "hi" } });
      expect(answered.isError).toBeFalsy();
      const offered = (upstream.chatRequests().at(-1)!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
      expect(offered.every((name) => name.startsWith("memory__"))).toBe(true);
    } finally {
      await scoped.client.close();
      await plain.client.close();
    }
  });

  it("/mcp for a 2026-07-28 client holds a key to its servers and models too, and needs the key", async () => {
    const modern = async (key?: string) => {
      const client = new ModernClient({ name: "modern-key-test", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
      await client.connect(new ModernTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } }));
      return client;
    };
    await expect(modern()).rejects.toThrow();
    const scoped = await modern(SCOPED);
    try {
      const names = (await scoped.listTools()).tools.map((t) => t.name);
      expect(names).toContain("memory__read_graph");
      expect(names.filter((name) => !name.startsWith("memory__") && name !== "chat" && name !== "steer")).toEqual([]);
      await expect(scoped.callTool({ name: "everything__echo", arguments: { message: "hi" } })).rejects.toThrow(/may not use the MCP server "everything"; it may use: memory/);
      expect((await scoped.callTool({ name: "memory__read_graph", arguments: {} })).isError).toBeFalsy();
      expect((await scoped.listResources()).resources.map((r) => r.uri).filter((uri) => !uri.startsWith("memory://"))).toEqual([]);
      const model = await scoped.callTool({ name: "chat", arguments: { prompt: "hi", model: "secret" } });
      expect(model.isError).toBe(true);
    } finally {
      await scoped.close();
    }
  });

  it("/mcp's chat tool counts against the key's rpm", async () => {
    const { client } = await connectHttp(new URL(`${gw.url}/mcp`), { headers: { authorization: `Bearer ${MCP_RPM}` } });
    try {
      expect((await client.callTool({ name: "chat", arguments: { prompt: "hi", model: "fake/m", mcpServers: [] } })).isError).toBeFalsy();
      const refused = await client.callTool({ name: "chat", arguments: { prompt: "hi", model: "fake/m", mcpServers: [] } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain('Rate limit reached for the API key \\"mcp-team\\": 1 requests per minute');
      // Calls of the servers' own tools are not model requests: not limited.
      expect((await client.callTool({ name: "everything__echo", arguments: { message: "hi" } })).isError).toBeFalsy();
      expect(upstream.chatRequests()).toHaveLength(1);
    } finally {
      await client.close();
    }
  });
});
