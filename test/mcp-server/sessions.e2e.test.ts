/**
 * /mcp sessions under the review's rules: a session belongs to the API key that opened it, their
 * number is bounded (`gateway.maxMcpSessions`, idle ones swept first), requests count against
 * `gateway.maxConcurrentRequests`, and a 401 carries the `WWW-Authenticate: Bearer` challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { listen } from "../../src/gateway/http/listen.ts";
import { McpHttpEndpoint } from "../../src/gateway/mcp-server/http.ts";
import { connectHttp, fixtureServer, startMcpGateway, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { openRawSession } from "./probe.ts";

const toolsList = { jsonrpc: "2.0", id: 2, method: "tools/list" };

describe("a session belongs to the API key that opened it", () => {
  let gw: McpGateway;

  beforeAll(async () => {
    gw = await startMcpGateway({ mcpServers: { fixture: fixtureServer() }, gateway: { apiKeys: ["key-of-alice", "key-of-bob"] } });
  });

  afterAll(async () => {
    await gw?.close();
  });

  it("answers its id presented with another key as an unknown session (404), and leaves it alone", async () => {
    const alice = await openRawSession(gw.mcpUrl, { authorization: "Bearer key-of-alice" });
    const asBob = { ...alice.headers, authorization: "Bearer key-of-bob" };
    const post = await fetch(gw.mcpUrl, { method: "POST", headers: asBob, body: JSON.stringify(toolsList) });
    expect(post.status).toBe(404);
    expect(await post.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" } });
    expect((await fetch(gw.mcpUrl, { method: "GET", headers: { ...asBob, accept: "text/event-stream" } })).status).toBe(404);
    expect((await fetch(gw.mcpUrl, { method: "DELETE", headers: asBob })).status).toBe(404);
    // Still Alice's, and still there.
    const own = await alice.post(toolsList);
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("fixture__test_simple_text");
    expect((await fetch(gw.mcpUrl, { method: "DELETE", headers: alice.headers })).status).toBe(200);
  });

  it("challenges a request without a valid key with 401 and WWW-Authenticate: Bearer", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const missing = await fetch(gw.mcpUrl, { method: "POST", headers, body: JSON.stringify(toolsList) });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="mcp-gateway"');
    const wrong = await fetch(gw.mcpUrl, { method: "POST", headers: { ...headers, authorization: "Bearer nope" }, body: JSON.stringify(toolsList) });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="mcp-gateway", error="invalid_token"');
  });
});

describe("gateway.maxMcpSessions", () => {
  it("refuses an initialize beyond the limit with 503, a JSON-RPC error and retry-after; a closed session frees its place", async () => {
    const gw = await startMcpGateway({ mcpServers: { fixture: fixtureServer() }, gateway: { maxMcpSessions: 2 } });
    try {
      const first = await openRawSession(gw.mcpUrl);
      await openRawSession(gw.mcpUrl);
      const refused = await fetch(gw.mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "third", version: "1" } } }),
      });
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, message: expect.stringContaining("gateway.maxMcpSessions") } });
      expect(gw.gateway.mcpHttp.sessionCount).toBe(2);
      // The SDK client sees the refusal as a failed connect.
      await expect(connectHttp(gw.mcpUrl)).rejects.toThrow();
      await fetch(gw.mcpUrl, { method: "DELETE", headers: first.headers });
      const { client, transport } = await connectHttp(gw.mcpUrl);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await transport.terminateSession();
      await client.close();
    } finally {
      await gw.close();
    }
  });

  it("sweeps idle sessions before refusing", async () => {
    const gw = await startMcpGateway({ mcpServers: { fixture: fixtureServer() } });
    let clock = 0;
    const config = { ...gw.gateway.config, gateway: { ...gw.gateway.config.gateway, maxMcpSessions: 1 } };
    const endpoint = new McpHttpEndpoint({ hub: gw.gateway.mcp, config, logger: gw.gateway.logger, idleMs: 60_000, now: () => clock });
    const app = new Hono();
    endpoint.mount(app);
    const server = await listen(app, "127.0.0.1", 0);
    const url = new URL(`${server.url}/mcp`);
    try {
      const idle = await openRawSession(url);
      clock += 30_000; // not idle long enough yet
      await expect(openRawSession(url)).rejects.toThrow(/initialize failed: 503/);
      clock += 60_000;
      const fresh = await openRawSession(url);
      expect(endpoint.sessionCount).toBe(1);
      expect((await idle.post(toolsList)).status).toBe(404); // swept
      expect((await fresh.post(toolsList)).status).toBe(200);
    } finally {
      await endpoint.close();
      await server.close(1_000);
      await gw.close();
    }
  });
});

describe("gateway.maxConcurrentRequests on /mcp", () => {
  it("counts /mcp requests (an open stream for as long as it is open) and sheds the excess with 429", async () => {
    const gw = await startMcpGateway({ mcpServers: { fixture: fixtureServer() }, gateway: { maxConcurrentRequests: 1 } });
    try {
      const session = await openRawSession(gw.mcpUrl);
      const controller = new AbortController();
      const stream = await fetch(gw.mcpUrl, { method: "GET", headers: { ...session.headers, accept: "text/event-stream" }, signal: controller.signal });
      expect(stream.status).toBe(200); // holds the only place while open
      const shed = await session.post(toolsList);
      expect(shed.status).toBe(429);
      expect(shed.headers.get("retry-after")).toBe("1");
      controller.abort();
    } finally {
      await gw.close();
    }
  });
});
