/**
 * `mcp-gateway check` starts each MCP server once and reports what that start did. It used to
 * share the gateway's retrying pool: a server that failed was retried in the background while
 * a slower one was still starting, and the table could catch it mid-retry ("starting") — the
 * race behind "prints a table and exits non-zero when a server fails" failing one run in three
 * on a busy machine (exit 0 though a server had exited with an error).
 */
import { afterEach, describe, expect, it } from "vitest";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logLines, slowServerEntry } from "../helpers/mcp-servers.ts";
import { bin, root, writeConfig } from "../helpers/serve-process.ts";

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function check(config: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, "check", "--config", config], { cwd: root });
    children.push(child);
    let stdout = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.resume();
    child.on("close", (code) => resolve({ code, stdout }));
  });
}

describe("mcp-gateway check with a failing server beside a slow one", () => {
  it("starts the failing server once, reports it failed and exits 1", async () => {
    const log = join(mkdtempSync(join(tmpdir(), "mcpgw-check-")), "starts.log");
    const config = writeConfig({
      mcpServers: {
        // Fails at once, every time, saying why; each start leaves a line in the log.
        broken: {
          command: process.execPath,
          args: ["-e", `require("fs").appendFileSync(${JSON.stringify(log)}, "start\\n"); console.error("missing FOO_TOKEN"); process.exit(3)`],
        },
        // Still starting long after the failing server's first retry would have been due
        // (retries start after 250-500 ms): it never answers initialize, and times out.
        slow: slowServerEntry({ mode: "hang" }, { startTimeoutMs: 2_500 }),
      },
    });
    const { code, stdout } = await check(config);
    expect(stdout).toMatch(/broken\s+stdio\s+failed/);
    expect(stdout).toMatch(/slow\s+stdio\s+failed/);
    expect(stdout.replace(/\n {4,}/g, " ")).toContain("missing FOO_TOKEN");
    expect(code, stdout).toBe(1);
    expect(logLines(log)).toEqual(["start"]);
  });
});
