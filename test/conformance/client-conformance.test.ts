/**
 * The suite's client scenarios (@modelcontextprotocol/conformance-next) against the gateway's
 * upstream MCP client (test/conformance/gateway-client.ts runs McpPool on the scenario's server),
 * where the suite allows a generic client: the ones its own example client serves by listing
 * and calling tools. (The others script their own calls: sampling-state, custom-header scenarios.)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/mcp-gateway-harness.ts";
import { CONFORMANCE_NEXT_CLI, NODE22 } from "./run-conformance.ts";

const CLIENT = `${process.execPath} --import tsx ${join(ROOT, "test", "conformance", "gateway-client.ts")}`;

async function runClientScenario(scenario: string, specVersion: string): Promise<{ status: string; name: string }[]> {
  const out = mkdtempSync(join(tmpdir(), "mcp-client-conformance-"));
  try {
    const child = spawn(NODE22, [CONFORMANCE_NEXT_CLI, "client", "--command", CLIENT, "--scenario", scenario, "--spec-version", specVersion, "-o", out], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "ignore"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    await new Promise((resolve) => child.once("exit", resolve));
    const dir = readdirSync(out).find((d) => d.startsWith(`${scenario}-`));
    const file = dir === undefined ? undefined : join(out, dir, "checks.json");
    if (!file || !existsSync(file)) throw new Error(`no results for ${scenario} at ${specVersion}`);
    return JSON.parse(readFileSync(file, "utf8")) as { status: string; name: string }[];
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const supported = process.platform === "linux" && process.arch === "x64";

const cases = [
  { scenario: "tools_call", specVersion: "2025-11-25" },
  { scenario: "tools_call", specVersion: "2026-07-28" },
  { scenario: "request-metadata", specVersion: "2026-07-28" },
  { scenario: "json-schema-ref-no-deref", specVersion: "2026-07-28" },
  { scenario: "http-standard-headers", specVersion: "2026-07-28" },
];

describe.skipIf(!supported)("conformance client scenarios against the gateway's upstream client", () => {
  it.each(cases)("$scenario at $specVersion", async ({ scenario, specVersion }) => {
    const checks = await runClientScenario(scenario, specVersion);
    expect(checks.filter((c) => c.status === "FAILURE").map((c) => c.name)).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS").length).toBeGreaterThan(0);
  }, 120_000);
});
