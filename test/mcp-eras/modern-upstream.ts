/**
 * A gateway fronting the SDK 2.x reference server (test/conformance/modern-fixture-server.ts)
 * over HTTP as the server `modern`, which it speaks 2026-07-28 to: started before the calling
 * file's tests and stopped after them.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { startMcpGateway, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { startModernFixtureHttp, type HttpServerUnderTest } from "../conformance/run-conformance.ts";

export function useModernUpstream(): { readonly gateway: McpGateway } {
  let fixture: HttpServerUnderTest | undefined;
  let gateway: McpGateway | undefined;
  beforeAll(async () => {
    fixture = await startModernFixtureHttp();
    gateway = await startMcpGateway({ mcpServers: { modern: { type: "http", url: fixture.url } } });
    expect(gateway.gateway.pool.connection("modern")?.upstream?.era).toBe("modern");
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await fixture?.stop();
  });
  return {
    get gateway() {
      if (!gateway) throw new Error("the gateway is started in beforeAll");
      return gateway;
    },
  };
}
