/**
 * What only the Streamable HTTP transport has: sessions (several clients at once, DELETE, idle
 * clean-up), resumption with Last-Event-ID, DNS-rebinding protection, bearer auth, routing of an
 * upstream request to the session that caused it, and sampling answered by the gateway's model
 * for clients that cannot sample.
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallToolResultSchema, CreateMessageRequestSchema, ListRootsRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { connectHttp, everythingServer, fixtureServer, signal, startMcpGateway, textOf, type McpGateway } from "../helpers/mcp-gateway-harness.ts";

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

/** A raw POST of an initialize with chosen Host/Origin/Authorization headers (fetch may not set Host). */
function rawPost(url: URL, headers: Record<string, string>, body = initialize): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

let upstream: ScriptedUpstream;
let gw: McpGateway;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer(), fixture: fixtureServer() },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    // forwardRoots: a session with roots makes the gateway tell upstream servers (the routing test uses it).
    gateway: { sampling: { model: "fake/sampler" }, allowedHosts: ["mcp.example.com"], allowedOrigins: ["https://app.example.com"], forwardRoots: true },
  });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

describe("DNS-rebinding protection", () => {
  it("refuses a foreign Host or Origin with 403 and accepts loopback and configured ones", async () => {
    const port = gw.mcpUrl.port;
    const evilHost = await rawPost(gw.mcpUrl, { host: "evil.example.com" });
    expect(evilHost.status).toBe(403);
    expect(JSON.parse(evilHost.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 }, id: null });
    expect((await rawPost(gw.mcpUrl, { host: `127.0.0.1:${port}`, origin: "http://evil.example.com" })).status).toBe(403);
    expect((await rawPost(gw.mcpUrl, { host: `localhost:${port}`, origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await rawPost(gw.mcpUrl, { host: `mcp.example.com:${port}`, origin: "https://app.example.com" })).status).toBe(200);
    expect((await rawPost(gw.mcpUrl, { host: `mcp.example.com:${port}`, origin: "https://other.example.com" })).status).toBe(403);
    await gw.gateway.mcpHttp.sweep(Date.now() + 24 * 3600_000);
  });
});

describe("bearer auth", () => {
  it("requires Authorization: Bearer when gateway.apiKeys is set", async () => {
    const locked = await startMcpGateway({ mcpServers: { fixture: fixtureServer() }, gateway: { apiKeys: ["secret-key-1"] } });
    try {
      const missing = await rawPost(locked.mcpUrl, {});
      expect(missing.status).toBe(401);
      expect(JSON.parse(missing.body).error.code).toBe("invalid_api_key");
      expect((await rawPost(locked.mcpUrl, { authorization: "Bearer wrong" })).status).toBe(401);
      const { client } = await connectHttp(locked.mcpUrl, { headers: { authorization: "Bearer secret-key-1" } });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("fixture__test_simple_text");
      await client.close();
    } finally {
      await locked.close();
    }
  });
});

describe("sessions", () => {
  it("keeps one server per session, ends it on DELETE, and answers its id with 404 afterwards", async () => {
    const before = gw.gateway.mcpHttp.sessionCount;
    const a = await connectHttp(gw.mcpUrl);
    const b = await connectHttp(gw.mcpUrl);
    expect(gw.gateway.mcpHttp.sessionCount).toBe(before + 2);
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    const id = a.transport.sessionId!;
    await a.transport.terminateSession();
    expect(gw.gateway.mcpHttp.sessionCount).toBe(before + 1);
    const stale = await fetch(gw.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
    expect((await b.client.listTools()).tools.length).toBeGreaterThan(0);
    await b.transport.terminateSession();
    await a.client.close();
    await b.client.close();
    expect(gw.gateway.mcpHttp.sessionCount).toBe(before);
  });

  it("refuses requests without a session, other than initialize", async () => {
    const noSession = await fetch(gw.mcpUrl, { method: "GET", headers: { accept: "text/event-stream" } });
    expect(noSession.status).toBe(400);
    const notInit = await rawPost(gw.mcpUrl, { host: `127.0.0.1:${gw.mcpUrl.port}` }, JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }));
    expect(notInit.status).toBe(400);
  });

  it("closes a session its client abandoned without DELETE once it has been idle", async () => {
    await gw.gateway.mcpHttp.sweep(Date.now() + 24 * 3600_000);
    const opened = await rawPost(gw.mcpUrl, { host: `127.0.0.1:${gw.mcpUrl.port}` });
    expect(opened.status).toBe(200);
    expect(opened.headers["mcp-session-id"]).toBeTruthy();
    expect(gw.gateway.mcpHttp.sessionCount).toBe(1);
    await gw.gateway.mcpHttp.sweep(Date.now());
    expect(gw.gateway.mcpHttp.sessionCount).toBe(1); // not idle long enough
    await gw.gateway.mcpHttp.sweep(Date.now() + 31 * 60_000);
    expect(gw.gateway.mcpHttp.sessionCount).toBe(0);
    expect(gw.gateway.mcp.sessionCount).toBe(0);
  });

  it("resumes a dropped response stream from Last-Event-ID", async () => {
    // A bare session (no GET stream), so "no stream open" is something the test can wait for.
    const opened = await rawPost(gw.mcpUrl, { host: `127.0.0.1:${gw.mcpUrl.port}` });
    const sessionId = String(opened.headers["mcp-session-id"]);
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    };
    const controller = new AbortController();
    const post = await fetch(gw.mcpUrl, {
      method: "POST",
      headers,
      signal: controller.signal,
      body: JSON.stringify({ jsonrpc: "2.0", id: 41, method: "tools/call", params: { name: "everything__trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } } }),
    });
    expect(post.headers.get("content-type")).toContain("text/event-stream");
    // Read the priming event (an id and no data), then drop the connection.
    const reader = post.body!.getReader();
    let head = "";
    while (!/\n\n/.test(head)) head += new TextDecoder().decode((await reader.read()).value);
    const lastEventId = /^id: (.+)$/m.exec(head)![1]!;
    controller.abort();
    // Resuming while the server still holds the old stream would be a 409: wait until it let go.
    await gw.gateway.mcpHttp.whenIdle(sessionId);
    const resumed = await fetch(gw.mcpUrl, { method: "GET", headers: { ...headers, "last-event-id": lastEventId } });
    expect(resumed.status).toBe(200);
    const replay = resumed.body!.getReader();
    let text = "";
    while (!text.includes('"id":41')) {
      const { value, done } = await replay.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await replay.cancel();
    expect(text).toContain("Long running operation completed");
    const deleted = await fetch(gw.mcpUrl, { method: "DELETE", headers });
    expect(deleted.status).toBe(200);
  });
});

describe("failing upstream servers", () => {
  it("says a server is not available when a name in its namespace is called while it is down", async () => {
    const down = await startMcpGateway({ mcpServers: { broken: { command: process.execPath, args: ["-e", "process.exit(3)"] }, fixture: fixtureServer() } });
    try {
      const { client, transport } = await connectHttp(down.mcpUrl);
      expect((await client.listTools()).tools.some((t) => t.name.startsWith("broken__"))).toBe(false);
      await expect(client.callTool({ name: "broken__anything", arguments: {} })).rejects.toThrow(/MCP server "broken" is not available \((failed|starting)/);
      await transport.terminateSession();
      await client.close();
    } finally {
      await down.close();
    }
  });


  it("gets its request cancelled after its timeoutMs, and the client a timeout error", async () => {
    const slow = await startMcpGateway({ mcpServers: { fixture: fixtureServer({ timeoutMs: 1_000 }) } });
    try {
      const { client, transport } = await connectHttp(slow.mcpUrl);
      await expect(client.callTool({ name: "fixture__probe_wait_for_cancel", arguments: {} })).rejects.toThrow(/Request timed out/);
      expect(textOf(await client.callTool({ name: "fixture__probe_cancelled", arguments: {} }))).toMatch(/^cancelled: /);
      await transport.terminateSession();
      await client.close();
    } finally {
      await slow.close();
    }
  });
});

describe("requests from upstream servers", () => {
  it("routes a server's request to the session whose call caused it, not the most recent one", async () => {
    const a = await connectHttp(gw.mcpUrl, { name: "a", capabilities: { sampling: {} } }, (client) =>
      client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: "assistant", model: "a", content: { type: "text", text: "from A" } })),
    );
    const started = signal();
    const call = a.client.callTool({ name: "fixture__probe_sample_on_roots_change", arguments: {} }, CallToolResultSchema, { onprogress: () => started.resolve() });
    await started.promise;
    // B connects (now the most recently active session); a client with roots makes the gateway
    // tell upstream servers that roots changed, which is what the fixture waits for to sample.
    const b = await connectHttp(gw.mcpUrl, { name: "b", capabilities: { sampling: {}, roots: {} } }, (client) => {
      client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: "assistant", model: "b", content: { type: "text", text: "from B" } }));
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [] }));
    });
    expect(textOf(await call)).toBe("sampled: from A");
    await a.transport.terminateSession();
    await b.transport.terminateSession();
    await a.client.close();
    await b.client.close();
  });

  it("answers sampling with gateway.sampling.model when the client cannot sample", async () => {
    upstream.script([{ text: "sampled by the gateway" }]);
    const { client, transport } = await connectHttp(gw.mcpUrl, { capabilities: {} });
    const result = await client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 20 } });
    expect(textOf(result)).toContain("sampled by the gateway");
    const sent = upstream.chatRequests()[0]!.body;
    expect(sent.model).toBe("sampler");
    expect(sent.messages).toEqual([
      { role: "system", content: "You are a helpful test server." },
      { role: "user", content: "Resource trigger-sampling-request context: hi" },
    ]);
    expect(sent.max_tokens ?? sent.max_completion_tokens).toBe(20);
    await transport.terminateSession();
    await client.close();
  });
});
