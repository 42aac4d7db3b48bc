/**
 * The 2026-07-28 /mcp needs no session state: two `mcp-gateway serve` processes (each with its
 * own memory store, nothing shared) behind one round-robin load balancer, and a 2026-07-28
 * client whose consecutive requests alternate between them — discovery, lists, tool calls, and an
 * elicitation round trip with a 2026-07-28 upstream (the InputRequiredResult comes from one
 * instance, the retry with the answer goes to the other).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { everythingServer, textOf } from "../helpers/mcp-gateway-harness.ts";
import { startRoundRobinProxy, type RoundRobinProxy } from "../helpers/round-robin-proxy.ts";
import { startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";
import { startModernFixtureHttp, type HttpServerUnderTest } from "../conformance/run-conformance.ts";

let fixture: HttpServerUnderTest;
let instances: ServeProcess[] = [];
let proxy: RoundRobinProxy;

beforeAll(async () => {
  fixture = await startModernFixtureHttp();
  const config = writeConfig({ mcpServers: { everything: everythingServer(), modern: { type: "http", url: fixture.url } }, gateway: { port: 0 } });
  instances = await Promise.all([0, 1].map(() => startServe(config)));
  // Every instance has its MCP servers before the tests start.
  await Promise.all(instances.flatMap((i) => ["everything", "modern"].map((s) => i.waitForLog(new RegExp(`"server":"${s}"[^\\n]*"msg":"mcp server ready"`)))));
  proxy = await startRoundRobinProxy(instances.map((i) => i.port));
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  for (const instance of instances) instance.kill();
  await Promise.all(instances.map((i) => i.exited));
  await fixture?.stop();
});

describe("a 2026-07-28 client through a load balancer in front of two gateways", () => {
  it("has every request answered, alternating between the instances", async () => {
    const client = new Client({ name: "lb-client", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
    client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { name: "Ada" } }));
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`)));
    const before = proxy.served.length;
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("everything__echo");
    for (let i = 0; i < 4; i++) expect(textOf(await client.callTool({ name: "everything__echo", arguments: { message: `n${i}` } }))).toBe(`Echo: n${i}`);
    expect(textOf(await client.callTool({ name: "modern__test_input_required_result_elicitation", arguments: {} }))).toBe("Hello, Ada!");
    await client.close();
    const served = proxy.served.slice(before).filter((s) => s.method === "POST");
    expect(served.length).toBeGreaterThanOrEqual(7);
    expect(served.every((s) => s.status < 400)).toBe(true);
    // Round robin: consecutive requests went to different instances, both of them.
    expect(new Set(served.map((s) => s.backend)).size).toBe(2);
    for (let i = 1; i < served.length; i++) expect(served[i]!.backend).not.toBe(served[i - 1]!.backend);
  });
});
