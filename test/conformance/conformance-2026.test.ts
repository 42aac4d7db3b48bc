/**
 * The official MCP conformance suite's 0.2.0-alpha line (@modelcontextprotocol/conformance-next)
 * at the 2026-07-28 wire (`--spec-version 2026-07-28 --suite all`), server scenarios: against the
 * reference server on the SDK 2.x packages (test/conformance/modern-fixture-server.ts) directly,
 * and against the gateway's /mcp while it fronts that server with `prefix: ""` — over HTTP,
 * where the gateway probes it and speaks 2026-07-28 to it. Every scenario that passes directly
 * must pass through the gateway.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMcpGateway, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { passing, runConformance, startModernFixtureHttp, type HttpServerUnderTest, type ScenarioResult } from "./run-conformance.ts";

const supported = process.platform === "linux" && process.arch === "x64";

describe.skipIf(!supported)("conformance 2026-07-28 through the gateway", () => {
  let direct: Map<string, ScenarioResult>;
  let through: Map<string, ScenarioResult>;
  let fixture: HttpServerUnderTest | undefined;
  let gateway: McpGateway | undefined;

  beforeAll(async () => {
    fixture = await startModernFixtureHttp();
    gateway = await startMcpGateway({ mcpServers: { upstream: { type: "http", url: fixture.url, prefix: "" } } });
    // One after the other: the gateway and the fixture share the machine's cores.
    direct = await runConformance(fixture.url, { specVersion: "2026-07-28" });
    through = await runConformance(gateway.mcpUrl.href, { specVersion: "2026-07-28" });
    console.info(`2026-07-28: the reference server directly ${passing(direct).length}/${direct.size}; through the gateway ${passing(through).length}/${through.size}`);
  }, 600_000);

  afterAll(async () => {
    await gateway?.close();
    await fixture?.stop();
  });

  it("passes every scenario directly (the reference server implements the whole suite)", () => {
    const failing = [...direct.values()].filter((r) => !r.ok);
    expect(failing.map((r) => `${r.scenario}: ${r.failures.join("; ")}`)).toEqual([]);
    expect(direct.size).toBeGreaterThanOrEqual(35);
  });

  it("speaks 2026-07-28 to the reference server", () => {
    expect(gateway!.gateway.pool.connection("upstream")?.upstream?.era).toBe("modern");
  });

  it("passes through the gateway every scenario that passes directly", () => {
    const lost = passing(direct).filter((scenario) => !through.get(scenario)?.ok);
    expect(lost.map((s) => `${s}: ${through.get(s)?.failures.join("; ") ?? "not run"}`)).toEqual([]);
    expect(through.size).toBe(direct.size);
  });
});
