/**
 * The `chat` tool's conversations on a shared Redis store (a real redis-server): a conversation
 * begun on one instance goes on on another, which reads its history from Redis; another key
 * never reaches it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHttp, startMcpGateway, textOf, type HttpClient, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

type Json = any;
let redis: RunningRedis;
let upstream: ScriptedUpstream;
const gateways: McpGateway[] = [];
const clients: HttpClient[] = [];

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream("openai");
});
afterAll(async () => {
  for (const http of clients) {
    await http.transport.terminateSession();
    await http.client.close();
  }
  for (const gateway of gateways) await gateway.close();
  await upstream?.close();
  await redis?.stop();
});

async function instance(): Promise<McpGateway> {
  const started = await startMcpGateway({
    mcpServers: {},
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    models: { default: { model: "fake/m" } },
    gateway: { apiKeys: ["key-one-0123456789", "key-two-0123456789"], store: { redis: { url: redis.url, keyPrefix: "conversations-test:" } } },
  });
  gateways.push(started);
  return started;
}

async function client(gateway: McpGateway, key: string): Promise<HttpClient> {
  const http = await connectHttp(gateway.mcpUrl, { headers: { authorization: `Bearer ${key}` } });
  clients.push(http);
  return http;
}

describe("chat conversations on Redis", () => {
  it("go on on another instance, for the same key only", async () => {
    const [a, b] = [await instance(), await instance()];
    upstream.script([{ text: "Noted: Oslo." }, { text: "You said Oslo." }, { text: "I know of no city." }]);
    const onA = await client(a, "key-one-0123456789");
    const first = await onA.client.callTool({ name: "chat", arguments: { prompt: "Remember Oslo", conversation: "trip" } });
    expect(textOf(first)).toBe("Noted: Oslo.");
    const onB = await client(b, "key-one-0123456789");
    const second = await onB.client.callTool({ name: "chat", arguments: { prompt: "Which city?", conversation: "trip" } });
    expect(textOf(second)).toBe("You said Oslo.");
    expect(upstream.chatRequests()[1]!.body.messages.map((m: Json) => m.content)).toEqual(["Remember Oslo", "Noted: Oslo.", "Which city?"]);
    // The same id under another key is another conversation.
    const otherKey = await client(b, "key-two-0123456789");
    await otherKey.client.callTool({ name: "chat", arguments: { prompt: "Which city?", conversation: "trip" } });
    expect(upstream.chatRequests()[2]!.body.messages.map((m: Json) => m.content)).toEqual(["Which city?"]);
  });
});
