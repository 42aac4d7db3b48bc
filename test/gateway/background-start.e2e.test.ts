/**
 * The gateway listens at once: MCP servers connect in the background. /health answers while a
 * server hangs (showing it `starting`, then `failed` after its start timeout), /ready is 503
 * until no server is on its first start, a server that becomes ready later has its tools in the
 * next /v1 request and announced to /mcp sessions, and /health is `degraded` (still 200) with
 * the reasons when a server failed or no provider can be used. Synchronized on the pool's
 * events, never on sleeps.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { McpPool, ServerState } from "../../src/mcp/pool.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { slowServerEntry, tempDir } from "../helpers/mcp-servers.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let upstream: ScriptedUpstream;
const running: RunningGateway[] = [];
const dirs: { remove: () => void }[] = [];

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((g) => g.close()));
  for (const dir of dirs.splice(0)) dir.remove();
});
afterAll(async () => {
  await upstream?.close();
});

const provider = () => ({ fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-test-provider" } });

/** A gateway that listens without waiting for its servers (as `serve` does). */
async function start(json: Record<string, unknown>, env: Record<string, string> = {}): Promise<RunningGateway> {
  const gw = await startGateway(json, { waitForServers: false, env });
  running.push(gw);
  return gw;
}

function gateFile(): string {
  const dir = tempDir("mcp-gw-bg-");
  dirs.push(dir);
  return join(dir.path, "gate");
}

/** Resolves with the first state of `server` that satisfies `predicate` (now or in a later status event). */
function stateOf(pool: McpPool, server: string, predicate: (state: ServerState) => boolean): Promise<ServerState> {
  return new Promise((resolve) => {
    const now = pool.connection(server)!.status;
    if (predicate(now)) return resolve(now);
    const off = pool.onStatus((state) => {
      if (state.name !== server || !predicate(state)) return;
      off();
      resolve(state);
    });
  });
}

function readyOnce(pool: McpPool, server: string): Promise<void> {
  return new Promise((resolve) => {
    const off = pool.onReady((name) => {
      if (name !== server) return;
      off();
      resolve();
    });
  });
}

interface Health {
  status: string;
  reasons: string[];
  servers: { name: string; status: string; error?: string }[];
  providers: { name: string; status: string }[];
}

async function health(url: string, headers: Record<string, string> = {}): Promise<{ code: number; body: Health }> {
  const res = await fetch(`${url}/health`, { headers });
  return { code: res.status, body: (await res.json()) as Health };
}

async function ready(url: string, headers: Record<string, string> = {}): Promise<{ code: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/ready`, { headers });
  return { code: res.status, body: (await res.json()) as Record<string, unknown> };
}

function chat(url: string): Promise<Response> {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "fake/m", messages: [{ role: "user", content: "hi" }] }),
  });
}

/** Names of the tools the gateway offered upstream in the n-th chat request. */
function offeredTools(index: number): string[] {
  const body = upstream.chatRequests()[index]!.body as { tools?: { function: { name: string } }[] };
  return (body.tools ?? []).map((t) => t.function.name);
}

describe("a hanging MCP server does not delay the gateway", () => {
  it("/health answers while it is starting, then shows it failed with the timeout; /ready is 503, then 200", async () => {
    const gw = await start({ mcpServers: { hang: slowServerEntry({ mode: "hang" }, { startTimeoutMs: 300 }) }, providers: provider() });
    const pool = gw.gateway.pool;
    // The HTTP server listens and answers while the server has not finished its handshake.
    const early = await health(gw.url);
    expect(pool.connection("hang")!.status.status).toBe("starting");
    expect(early.code).toBe(200);
    expect(early.body.servers).toEqual([expect.objectContaining({ name: "hang", status: "starting" })]);
    expect(early.body).toMatchObject({ status: "ok", reasons: [] });
    expect(await ready(gw.url)).toEqual({ code: 503, body: { status: "starting", starting: ["hang"] } });

    const failed = await stateOf(pool, "hang", (s) => s.status === "failed");
    expect(failed.error).toContain("start timed out after 300 ms");
    const later = await health(gw.url);
    expect(later.code).toBe(200);
    expect(later.body.status).toBe("degraded");
    expect(later.body.servers).toEqual([expect.objectContaining({ name: "hang", status: "failed", error: expect.stringContaining("start timed out after 300 ms waiting for an answer to initialize") })]);
    expect(later.body.reasons).toEqual([expect.stringMatching(/^MCP server "hang" failed: start timed out after 300 ms/)]);
    // A failed first start ends the wait: it is retried in the background, /health shows it.
    expect(await ready(gw.url)).toEqual({ code: 200, body: { status: "ready" } });
    await gw.gateway.started;
  });

  it("a server that becomes ready later has its tools in the next /v1 request, and /mcp sessions are told", async () => {
    const gate = gateFile();
    const gw = await start({ mcpServers: { late: slowServerEntry({ mode: "gate", gate }) }, providers: provider() });
    const pool = gw.gateway.pool;
    upstream.script([{ text: "ok" }]);

    // Before it is ready: the request is answered at once, without its tools.
    expect((await chat(gw.url)).status).toBe(200);
    expect(offeredTools(0)).not.toContain("late__ping");
    expect(pool.connection("late")!.status.status).toBe("starting");

    // An MCP client connected while the server is starting.
    const client = new Client({ name: "bg-start-test", version: "1.0.0" });
    let announce!: () => void;
    const announced = new Promise<void>((resolve) => (announce = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => announce());
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("late__ping");

      const isReady = readyOnce(pool, "late");
      writeFileSync(gate, "");
      await isReady;

      expect((await chat(gw.url)).status).toBe(200);
      expect(offeredTools(1)).toContain("late__ping");
      await announced;
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("late__ping");
      expect(await ready(gw.url)).toEqual({ code: 200, body: { status: "ready" } });
    } finally {
      await client.close();
    }
  });

  it("an /mcp call to a tool of a server still starting waits for that start instead of refusing it", async () => {
    const gw = await start({ mcpServers: { hang: slowServerEntry({ mode: "hang" }, { startTimeoutMs: 300 }) } });
    const client = new Client({ name: "bg-start-call", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    try {
      expect(gw.gateway.pool.connection("hang")!.status.status).toBe("starting");
      // Answered once the start has ended (here: timed out), with why, not "(starting)".
      const error = await client.callTool({ name: "hang__ping", arguments: {} }).then(
        () => "answered",
        (e: Error) => e.message,
      );
      expect(error).toContain('MCP server "hang" is not available (failed: start timed out after 300 ms');
    } finally {
      await client.close();
    }
  });

  it("a command that does not exist is failed at once, with a clear message, and stays failed", async () => {
    const gw = await start({ mcpServers: { ghost: { command: "mcp-gw-no-such-command-4711" } }, providers: provider() });
    await gw.gateway.started;
    const { code, body } = await health(gw.url);
    expect(code).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.servers).toEqual([
      expect.objectContaining({ name: "ghost", status: "failed", attempts: 1, error: expect.stringContaining('command "mcp-gw-no-such-command-4711" not found (is it installed and on PATH?)') }),
    ]);
    expect(body.servers[0]).not.toHaveProperty("retryAt");
    expect(body.reasons).toEqual(['MCP server "ghost" failed: command "mcp-gw-no-such-command-4711" not found (is it installed and on PATH?); not retried: fix the config and restart the gateway']);
  });
});

describe("/health degraded when no provider can be used (still 200), /ready behind the keys", () => {
  it("no provider configured", async () => {
    const gw = await start({ mcpServers: {} });
    const { code, body } = await health(gw.url);
    expect(code).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.reasons).toEqual([expect.stringContaining("no provider configured")]);
  });

  it("every provider unavailable: names what is missing", async () => {
    const gw = await start({
      mcpServers: {},
      providers: { openai: { type: "openai", apiKey: "${MCPGW_TEST_NO_SUCH_KEY}" }, anthropic: { type: "anthropic", apiKey: "${MCPGW_TEST_NO_SUCH_KEY_2}" } },
    });
    const { code, body } = await health(gw.url);
    expect(code).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.providers.map((p) => p.status)).toEqual(["unavailable", "unavailable"]);
    expect(body.reasons).toHaveLength(1);
    expect(body.reasons[0]).toMatch(/^no provider is usable: openai \(.*MCPGW_TEST_NO_SUCH_KEY.*\); anthropic \(.*MCPGW_TEST_NO_SUCH_KEY_2.*\)$/);
  });

  it("one usable provider is enough: ok", async () => {
    const gw = await start({ mcpServers: {}, providers: { ...provider(), other: { type: "anthropic", apiKey: "${MCPGW_TEST_NO_SUCH_KEY}" } } });
    expect((await health(gw.url)).body).toMatchObject({ status: "ok", reasons: [] });
    expect(await ready(gw.url)).toEqual({ code: 200, body: { status: "ready" } });
  });

  it("with keys: liveness and readiness for anyone, details (reasons, which servers) only for key holders", async () => {
    const key = "gw-key-1234567890";
    const gw = await start({ mcpServers: { hang: slowServerEntry({ mode: "hang" }, { startTimeoutMs: 60_000 }) }, gateway: { apiKeys: [key] } });
    expect(await health(gw.url)).toEqual({ code: 200, body: { status: "degraded" } });
    expect(await ready(gw.url)).toEqual({ code: 503, body: { status: "starting" } });
    const auth = { authorization: `Bearer ${key}` };
    expect(await ready(gw.url, auth)).toEqual({ code: 503, body: { status: "starting", starting: ["hang"] } });
    expect((await health(gw.url, auth)).body).toMatchObject({ status: "degraded", reasons: [expect.stringContaining("no provider configured")], servers: [{ name: "hang", status: "starting" }] });
  });
});
