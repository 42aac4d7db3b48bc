/** `.env` in the folder a command runs in fills the config's ${VAR}s; the environment wins. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sendJson, startFakeUpstream } from "../helpers/fake-upstream.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const bin = join(root, "bin", "mcp-gateway.js");

function check(cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, "check", "--config", "mcp.config.json"], { cwd, env: { ...process.env, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A folder with a config whose provider's baseURL and key come from variables, and a .env. */
function folder(dotEnv: string | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-dotenv-"));
  writeFileSync(
    join(dir, "mcp.config.json"),
    JSON.stringify({ mcpServers: {}, providers: { up: { type: "openai", baseURL: "${MCPGW_TEST_DOTENV_URL}/v1", apiKey: "${MCPGW_TEST_DOTENV_KEY}" } } }),
  );
  if (dotEnv !== undefined) writeFileSync(join(dir, ".env"), dotEnv);
  return dir;
}

describe(".env loading", () => {
  let upstream: Awaited<ReturnType<typeof startFakeUpstream>>;
  beforeAll(async () => {
    upstream = await startFakeUpstream((_req, res) => sendJson(res, 200, { object: "list", data: [] }));
  });
  afterAll(async () => {
    await upstream.close();
  });

  it("fills ${VAR}s from ./.env (comments, quotes, export lines)", async () => {
    const dir = folder(`# the upstream\nMCPGW_TEST_DOTENV_URL="${upstream.url}"\nexport MCPGW_TEST_DOTENV_KEY=sk-from-dotenv\n`);
    const { code, stdout } = await check(dir);
    expect(stdout).toMatch(/^up\s+openai\s+openai\s+ok\s+\d+$/m);
    expect(code).toBe(0);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe("Bearer sk-from-dotenv");
  });

  it("never overrides a variable already set in the environment", async () => {
    const dir = folder(`MCPGW_TEST_DOTENV_URL=http://127.0.0.1:9\nMCPGW_TEST_DOTENV_KEY=sk-from-dotenv\n`);
    const { code, stdout } = await check(dir, { MCPGW_TEST_DOTENV_URL: upstream.url, MCPGW_TEST_DOTENV_KEY: "sk-from-env" });
    expect(stdout).toMatch(/^up\s+openai\s+openai\s+ok\s+\d+$/m);
    expect(code).toBe(0);
    expect(upstream.requests.at(-1)!.headers.authorization).toBe("Bearer sk-from-env");
  });

  it("without a .env, the unset variables are named as usual", async () => {
    const { code, stdout } = await check(folder(undefined));
    expect(code).toBe(1);
    expect(stdout).toMatch(/^up\s+openai\s+openai\s+unavailable\s+set MCPGW_TEST_DOTENV_URL, MCPGW_TEST_DOTENV_KEY$/m);
  });
});
