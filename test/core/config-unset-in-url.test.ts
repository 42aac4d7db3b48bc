/**
 * An unset ${VAR} inside a URL ("${FAKE_URL}/v1" becomes "/v1"): the message names the variable.
 * In a provider or server entry that entry is unavailable, as with any unset variable in it; in
 * a field that must be valid (the gateway section, a provider's type) the config error names it.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, resolveConfig } from "../../src/core/config/index.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const env = { PRESENT: "x" };

function problemsOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("an unset ${VAR} inside a URL", () => {
  it("makes a provider (baseURL) and a server (url) unavailable, naming the variable, instead of 'Invalid URL'", () => {
    const config = resolveConfig(
      {
        mcpServers: { remote: { url: "${MCPGW_FAKE_MCP_URL}/mcp", headers: { Authorization: "Bearer ${PRESENT}" } } },
        providers: { fake: { type: "openai", baseURL: "${MCPGW_FAKE_URL}/v1" }, other: { type: "openai", baseURL: "http://127.0.0.1:9/v1" } },
        models: { default: { model: "fake/m", fallbacks: ["other/m"] } },
      },
      env,
    );
    expect(config.servers.map((s) => [s.name, s.transport, s.missingVariables])).toEqual([["remote", "http", ["MCPGW_FAKE_MCP_URL"]]]);
    expect(config.providers.fake!.missingVariables).toEqual(["MCPGW_FAKE_URL"]);
    expect(config.providers.other!.missingVariables).toEqual([]);
  });

  it("when the field must be valid, the config error names the variable beside what was wrong", () => {
    expect(
      problemsOf(() =>
        resolveConfig(
          {
            providers: { fake: { type: "${MCPGW_FAKE_TYPE}", baseURL: "${MCPGW_FAKE_URL}/v1" } },
            gateway: { allowedHosts: ["${MCPGW_FAKE_HOST}"] },
          },
          env,
        ),
      ),
    ).toEqual([
      { path: "providers.fake.type", message: expect.stringMatching(/^Invalid option: .* \(the environment variable MCPGW_FAKE_TYPE is not set\)$/) },
      { path: "providers.fake.baseURL", message: "Invalid URL (the environment variable MCPGW_FAKE_URL is not set)" },
      { path: "gateway.allowedHosts[0]", message: expect.stringMatching(/ \(the environment variable MCPGW_FAKE_HOST is not set\)$/) },
    ]);
  });

  it("a bad URL with no unset variable is still a plain config error", () => {
    expect(problemsOf(() => resolveConfig({ providers: { fake: { type: "openai", baseURL: "${PRESENT}/v1" } } }, env))).toEqual([
      { path: "providers.fake.baseURL", message: "Invalid URL" },
    ]);
  });

  it("check prints the exact lines: the server and the provider unavailable, each naming its variable", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-unset-url-"));
    const config = join(dir, "mcp.config.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { remote: { url: "${MCPGW_FAKE_MCP_URL}/mcp" } }, providers: { fake: { type: "anthropic", baseURL: "${MCPGW_FAKE_URL}/v1" } } }),
    );
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [join(root, "bin", "mcp-gateway.js"), "check", "--config", config], { cwd: dir });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("close", (c) => resolve({ code: c, stdout: out }));
    });
    expect(code).toBe(1);
    expect(stdout).not.toContain("Invalid URL");
    const table = stdout.replace(/\n {4,}/g, " ");
    expect(table).toMatch(/^remote\s+http\s+unavailable\s+0\s+not started: set MCPGW_FAKE_MCP_URL \(unset in the environment; write \$\{MCPGW_FAKE_MCP_URL:-\} where empty is fine\)$/m);
    expect(table).toMatch(/^fake\s+anthropic\s+anthropic\s+unavailable\s+set MCPGW_FAKE_URL$/m);
  });
});
