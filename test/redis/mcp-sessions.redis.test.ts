/**
 * Legacy (session-based) /mcp sessions across gateway instances sharing one Redis (a real
 * redis-server): a session started on one instance goes on when its next request lands on
 * another, which re-creates it from its record — with the client's capabilities (a sampling
 * request reaches the client through the other instance), its log level and subscriptions;
 * DELETE ends it for every instance that has not seen it yet; another key cannot take it
 * over; with Redis down an unknown session is a 503 with retry-after, not a 404, and a record
 * that could not be written then is written once Redis is back.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { everythingServer, startMcpGateway, textOf, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import type { McpSessionRecord } from "../../src/gateway/mcp-server/http.ts";

let redis: RunningRedis;
const gateways: McpGateway[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await redis?.stop();
});

async function instance(gateway: Record<string, unknown> = {}): Promise<McpGateway> {
  const started = await startMcpGateway({
    mcpServers: { everything: everythingServer() },
    gateway: { store: { redis: { url: redis.url, keyPrefix: "mcp-sessions-test:" } }, ...gateway },
  });
  gateways.push(started);
  return started;
}

/**
 * An SDK client whose requests go to whichever instance `to` names at the time (what a load
 * balancer without sticky sessions does, under the test's control).
 */
function hoppingClient(target: { to: McpGateway }, options: { headers?: Record<string, string> } = {}) {
  const first = target.to.mcpUrl;
  const transport = new StreamableHTTPClientTransport(first, {
    ...(options.headers ? { requestInit: { headers: options.headers } } : {}),
    fetch: (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      url.host = target.to.mcpUrl.host;
      return fetch(url, init);
    },
  });
  const client = new Client({ name: "hopping-client", version: "1.0.0" }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, (request) => ({
    role: "assistant",
    model: "client-model",
    content: { type: "text", text: `sampled by the client (${request.params.messages.length} message)` },
  }));
  return { client, transport };
}

const record = (gateway: McpGateway, id: string) => gateway.gateway.store.table<McpSessionRecord>("mcp-sessions", { ttlMs: 60_000, maxEntryBytes: 1 << 20 }).get(id);

describe("a legacy /mcp session on several instances", () => {
  it("goes on on another instance, capabilities, log level and subscriptions included", async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const target = { to: a };
    const { client, transport } = hoppingClient(target);
    await client.connect(transport);
    const id = transport.sessionId!;
    expect(await record(a, id)).toMatchObject({ protocolVersion: LATEST_PROTOCOL_VERSION, clientInfo: { name: "hopping-client" }, capabilities: { sampling: {} }, subscriptions: [] });
    await client.setLoggingLevel("debug");
    const uri = (await client.listResources()).resources[0]!.uri;
    await client.subscribeResource({ uri });
    expect(await record(a, id)).toMatchObject({ logLevel: "debug", subscriptions: [uri] });

    // The next requests land on B, which never saw the session.
    target.to = b;
    expect(b.gateway.mcpHttp.sessionCount).toBe(0);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("everything__echo");
    expect(b.gateway.mcpHttp.sessionCount).toBe(1);
    expect(textOf(await client.callTool({ name: "everything__echo", arguments: { message: "hop" } }))).toContain("hop");
    // The upstream server's sampling request reaches the client through B: B's session knows the
    // client can sample (its capabilities came with the record).
    const sampled = await client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: "hi", maxTokens: 20 } });
    expect(JSON.stringify(sampled.content)).toContain("sampled by the client");

    // And on C, after a change made on B: the record followed.
    await client.unsubscribeResource({ uri });
    target.to = c;
    await client.setLoggingLevel("warning");
    expect(c.gateway.mcpHttp.sessionCount).toBe(1);
    expect(await record(c, id)).toMatchObject({ logLevel: "warning", subscriptions: [] });
    await client.close();
  });

  it("a DELETE ends it: an instance that has not seen it answers 404", async () => {
    const [a, b, c] = [await instance(), await instance(), await instance()];
    const target = { to: a };
    const { client, transport } = hoppingClient(target);
    await client.connect(transport);
    const id = transport.sessionId!;
    target.to = b;
    await client.listTools();
    await transport.terminateSession();
    expect(await record(a, id)).toBeUndefined();
    const stale = await fetch(c.mcpUrl, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" }),
    });
    expect(stale.status).toBe(404);
    await client.close();
  });

  it("belongs to the key that opened it: another key gets 404 on any instance", async () => {
    const keys = { apiKeys: ["key-one-123456", "key-two-123456"] };
    const [a, b] = [await instance(keys), await instance(keys)];
    const target = { to: a };
    const { client, transport } = hoppingClient(target, { headers: { authorization: "Bearer key-one-123456" } });
    await client.connect(transport);
    const post = (key: string) =>
      fetch(b.mcpUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-session-id": transport.sessionId!,
          "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
    expect((await post("key-two-123456")).status).toBe(404);
    expect(b.gateway.mcpHttp.sessionCount).toBe(0);
    const own = await post("key-one-123456");
    expect(own.status).toBe(200);
    expect(await own.text()).toContain("everything__echo");
    await client.close();
  });

  it("with Redis down, an unknown session is a 503 with retry-after (it may exist), and it resumes once Redis is back", async () => {
    const [a, b] = [await instance(), await instance()];
    const target = { to: a };
    const { client, transport } = hoppingClient(target);
    await client.connect(transport);
    await redis.stop();
    try {
      const answer = await fetch(b.mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": transport.sessionId!, "mcp-protocol-version": LATEST_PROTOCOL_VERSION },
        body: JSON.stringify({ jsonrpc: "2.0", id: 11, method: "tools/list" }),
      });
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("1");
      // The instance that has it goes on; a change it cannot keep now is kept later.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.setLoggingLevel("info");
    } finally {
      // (Without persistence: Redis comes back empty, as after losing its data.)
      await redis.start();
    }
    await expect.poll(() => a.gateway.store.health().status, { timeout: 15_000, interval: 20 }).toBe("ok");
    await expect.poll(() => b.gateway.store.health().status, { timeout: 15_000, interval: 20 }).toBe("ok");
    // Its next request on A writes the record it could not keep, before it is answered.
    await client.listTools();
    target.to = b;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("everything__echo");
    expect(await record(b, transport.sessionId!)).toMatchObject({ logLevel: "info" });
    await client.close();
  });
});
