/**
 * `serve --workers N` without a shared store: refused (each worker would keep its own state),
 * and bad values are usage errors. `--workers 1` is the single process it always was. (With
 * Redis: workers.redis.test.ts.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { bin, childPidsRunning, root, startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";

const children: ChildProcess[] = [];
const serves: ServeProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const serve of serves.splice(0)) serve.kill();
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("serve --workers", () => {
  it("refuses more than one worker with the memory store, saying why and what to set (exit 2)", async () => {
    const config = writeConfig({ mcpServers: {}, gateway: { port: 0 } });
    const { code, stderr } = await run(["serve", "--config", config, "--workers", "2"]);
    expect(code).toBe(2);
    expect(stderr).toContain('--workers 2 needs a shared state store: with gateway.store "memory"');
    expect(stderr).toContain('Set gateway.store to { "redis": { "url": "redis://…" } }');
  });

  it.each([["0"], ["two"], ["1.5"], ["257"]])("--workers %s is a usage error (exit 2)", async (value) => {
    const { code, stderr } = await run(["serve", "--workers", value]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--workers: expected a number of processes 1-256, got "${value}"`);
    expect(stderr).toContain("Usage: mcp-gateway serve");
  });

  it("is an option of serve only", async () => {
    const { code, stderr } = await run(["check", "--workers", "2"]);
    expect(code).toBe(2);
    expect(stderr).toContain('--workers is not an option of "check"');
  });

  it("--workers 1 is one process, as without it (memory store allowed, no worker processes)", async () => {
    const serve = await startServe(writeConfig({ mcpServers: {}, gateway: { port: 0 } }), ["--workers", "1"]);
    serves.push(serve);
    expect((await fetch(`${serve.url}/health`)).status).toBe(200);
    expect(childPidsRunning(serve.child.pid!, "mcp-gateway.js")).toEqual([]);
    serve.child.kill("SIGTERM");
    expect(await serve.exited).toBe(0);
  });
});
