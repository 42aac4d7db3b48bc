/**
 * `mcp-gateway serve` as a user runs it (`node bin/mcp-gateway.js serve …`) in a child process,
 * for the tests of shutdown, --workers and many instances.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
export const bin = join(root, "bin", "mcp-gateway.js");

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  port: number;
  /** Everything written on stderr so far (JSON log lines). */
  stderr(): string;
  /** Resolves once stderr has a line matching `pattern` (returns the match). */
  waitForLog(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string | null>;
  /** SIGKILL if still running (for afterAll/afterEach). */
  kill(): void;
}

export function writeConfig(config: object): string {
  const file = join(mkdtempSync(join(tmpdir(), "mcpgw-serve-")), "mcp.config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

/**
 * Starts `serve --config <config> …args` and resolves once it says where it listens.
 * `detached`: in a process group of its own (its pid is the group id), as a terminal or a
 * service manager starts it, so that a test can signal the whole group.
 */
export async function startServe(config: string, args: string[] = [], options: { env?: Record<string, string>; detached?: boolean } = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [bin, "serve", "--config", config, ...args], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: "info", ...options.env },
    ...(options.detached ? { detached: true } : {}),
  });
  let stderr = "";
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of [...waiters]) {
      const match = waiter.pattern.exec(stderr);
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(match);
      }
    }
  });
  child.stdout.resume();
  const exited = new Promise<number | string | null>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const waitForLog = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const match = pattern.exec(stderr);
      if (match) return resolve(match);
      waiters.push({ pattern, resolve });
      void exited.then((code) => reject(new Error(`serve exited (${code}) before logging ${pattern}: ${stderr}`)));
    });
  const match = await waitForLog(/listening on (http:\/\/[^"\s]+)/);
  const url = match[1]!;
  return {
    child,
    url,
    port: Number(new URL(url).port),
    stderr: () => stderr,
    waitForLog,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/** Direct children of a process (Linux /proc). */
export function childPids(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The command line of a process (Linux /proc), "" once it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return "";
  }
}

/** The children of `pid` whose command line contains `marker` (not tsx's esbuild service, say). */
export function childPidsRunning(pid: number, marker: string): number[] {
  return childPids(pid).filter((child) => commandLine(child).includes(marker));
}
