/**
 * Where `serve --workers 2` spends its CPU, process by process, beside one process: for the
 * `--workers` target (bench/run.ts `workers`), which judges only the pair's requests/s. The same
 * non-streamed pass-through as that target (16 connections), the one process (memory store) and
 * the pair (Redis store) in turns, and for each round and side, per request:
 * - the CPU of each process: the gateway's primary and each worker, `redis-server`, the fake
 *   upstream and the load generator (this process);
 * - the read and write syscalls of each (`/proc/<pid>/io`: syscr, syscw; writev counts as a write);
 * - the cores the whole run used (CPU per request of all of them × requests/s).
 * A pair that uses both cores and still serves less than twice the one process is bound by its
 * CPU per request under contention, not by a step of its own (docs/performance.md, "Stop 39").
 *
 *   npx tsx bench/workers-split.ts [rounds]   (BENCH_SECONDS per run, 4 by default; needs redis-server)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startRedis } from "../test/helpers/redis-server.ts";
import { fakeProviders } from "./door-requests.ts";
import { throughput } from "./measure.ts";
import { benchNode, childPids, cpuSeconds, freePort, start, type Running } from "./processes.ts";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const ROUNDS = Number(process.argv[2] ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const BODY = JSON.stringify({ model: "fake/m", stream: false, messages: [{ role: "user", content: "Say hello" }] });
const HEADERS = { "x-mcp-servers": "none" };

interface Counters {
  cpuSeconds: number;
  reads: number;
  writes: number;
}

/** A process's CPU time and syscall counts so far (zeros once it has exited). */
function counters(pid: number): Counters {
  try {
    const io = readFileSync(`/proc/${pid}/io`, "utf8");
    return { cpuSeconds: cpuSeconds(pid), reads: Number(/syscr: (\d+)/.exec(io)?.[1] ?? 0), writes: Number(/syscw: (\d+)/.exec(io)?.[1] ?? 0) };
  } catch {
    return { cpuSeconds: 0, reads: 0, writes: 0 };
  }
}

function config(port: number, fakePort: number, gateway: Record<string, unknown> = {}): string {
  const path = join(mkdtempSync(join(tmpdir(), "mcpgw-split-")), "mcp.config.json");
  writeFileSync(path, JSON.stringify({ providers: fakeProviders(fakePort), gateway: { port, maxConcurrentRequests: 4096, retries: { attempts: 1 }, ...gateway } }));
  return path;
}

/** One measured run of a side: its requests/s and, per request, each process's CPU (ms) and syscalls. */
async function measure(url: string, processes: { name: string; pid: number }[]): Promise<string> {
  const before = processes.map((p) => counters(p.pid));
  const load = process.cpuUsage();
  const run = await throughput(url, BODY, 16, SECONDS, HEADERS);
  const loadUsage = process.cpuUsage(load);
  const perRequest = (value: number) => value / Math.max(1, run.total);
  let cpuMs = perRequest((loadUsage.user + loadUsage.system) / 1000);
  const parts = processes.map((p, index) => {
    const now = counters(p.pid);
    const ms = perRequest((now.cpuSeconds - before[index]!.cpuSeconds) * 1000);
    cpuMs += ms;
    return `${p.name} ${ms.toFixed(3)} ms r${perRequest(now.reads - before[index]!.reads).toFixed(2)} w${perRequest(now.writes - before[index]!.writes).toFixed(2)}`;
  });
  const cores = (cpuMs * run.rps) / 1000;
  return `${Math.round(run.rps)} req/s${run.errors > 0 ? ` (${run.errors} errors)` : ""}, ${cores.toFixed(2)} cores | ${parts.join(", ")}, load ${perRequest((loadUsage.user + loadUsage.system) / 1000).toFixed(3)} ms`;
}

async function main(): Promise<void> {
  if (spawnSync(process.env.REDIS_SERVER ?? "redis-server", ["--version"]).error) throw new Error("needs redis-server (apt-get install redis-server)");
  const node = benchNode();
  const fakePort = await freePort();
  const fake = await start(node, [join(root, "bench", "fake-upstream.mjs")], { env: { PORT: String(fakePort) }, ready: /listening/, port: fakePort });
  const running: Running[] = [fake];
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  try {
    redis = await startRedis();
    const onePort = await freePort();
    const one = await start(node, [join(root, "bin", "mcp-gateway.js"), "serve", "--config", config(onePort, fakePort)], { env: { LOG_LEVEL: "info" }, ready: /listening on/, port: onePort });
    running.push(one);
    const pairPort = await freePort();
    const pairConfig = config(pairPort, fakePort, { store: { redis: { url: redis.url, keyPrefix: "split:" } } });
    const pair = await start(node, [join(root, "bin", "mcp-gateway.js"), "serve", "--config", pairConfig, "--workers", "2"], { env: { LOG_LEVEL: "info" }, ready: /with 2 workers/, port: pairPort });
    running.push(pair);
    const redisPid = Number(spawnSync("pgrep", ["-f", `redis-server.*:${redis.port}`], { encoding: "utf8" }).stdout.trim().split("\n")[0]);
    const shared = [...(redisPid > 0 ? [{ name: "redis", pid: redisPid }] : []), { name: "upstream", pid: fake.child.pid! }];
    const sides = [
      { name: "one process", url: `http://127.0.0.1:${onePort}/v1/chat/completions`, processes: [{ name: "gateway", pid: one.child.pid! }, ...shared] },
      {
        name: "--workers 2",
        url: `http://127.0.0.1:${pairPort}/v1/chat/completions`,
        processes: [{ name: "primary", pid: pair.child.pid! }, ...childPids(pair.child.pid!).map((pid, index) => ({ name: `worker ${index + 1}`, pid })), ...shared],
      },
    ];
    // Warmed alike: each worker compiles its hot code on its own, from half the requests.
    for (const side of sides) await throughput(side.url, BODY, 16, 2 * SECONDS, HEADERS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        process.stdout.write(`round ${round + 1}, ${side.name}: ${await measure(side.url, side.processes)}\n`);
      }
    }
  } finally {
    await Promise.all(running.map((r) => r.stop()));
    await redis?.stop();
  }
}

await main();
