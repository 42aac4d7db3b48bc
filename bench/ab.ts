/**
 * A/B: two builds of the gateway (`node <dir>/bin/mcp-gateway.js serve`) under the same load, in
 * turns, against one fake upstream: CPU per request of each, repeated. For deciding whether a
 * change is a win on a noisy machine (turns cancel out drift).
 *
 *   npx tsx bench/ab.ts <dirA> <dirB> [rounds] [path] [stream]   (BENCH_CONTENT=long-answer: 200-chunk answers)
 *
 * BENCH_LATENCY=1 measures instead what the latency targets measure: p50 and time to first byte of
 * sequential requests on one connection (BENCH_REQUESTS of them per round, 2,000 by default).
 *
 * BENCH_PIN=1 (CPU rounds; needs `taskset`, util-linux) runs both gateways on the second core and
 * the load and the fake upstream on the first: on a disturbed 2-core machine the rounds spread
 * less (one day's runs: 0.33–0.37 ms pinned against 0.31–0.51 ms not). Latency is not comparable
 * pinned (every request then crosses cores).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { median, sequentialLatency, throughput } from "./measure.ts";
import { fakeProviders } from "./door-requests.ts";
import { benchNode, cpuSeconds, freePort, start, type Running } from "./processes.ts";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const [dirA, dirB, rounds = "3", path = "/v1/chat/completions", stream = "false"] = process.argv.slice(2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const LATENCY = process.env.BENCH_LATENCY === "1";
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);

async function gateway(dir: string, fakePort: number): Promise<Running> {
  const port = await freePort();
  const config = join(mkdtempSync(join(tmpdir(), "mcpgw-ab-")), "mcp.config.json");
  writeFileSync(config, JSON.stringify({
    providers: fakeProviders(fakePort),
    gateway: { port, maxConcurrentRequests: 4096, retries: { attempts: 1 } },
  }));
  return start(benchNode(), [join(dir, "bin", "mcp-gateway.js"), "serve", "--config", config], { env: { LOG_LEVEL: "info" }, ready: /listening on/, port });
}

const bodies: Record<string, (s: boolean) => string> = {
  "/v1/chat/completions": (s) => JSON.stringify({ model: "fake/m", stream: s, messages: [{ role: "user", content: process.env.BENCH_CONTENT ?? "Say hello" }] }),
  "/v1/messages": (s) => JSON.stringify({ model: "claude/m", stream: s, max_tokens: 100, messages: [{ role: "user", content: "Say hello" }] }),
  "/v1/responses": (s) => JSON.stringify({ model: "responses/m", stream: s, input: "Say hello" }),
};

const fakePort = await freePort();
const fake = await start(benchNode(), [join(root, "bench", "fake-upstream.mjs")], { env: { PORT: String(fakePort) }, ready: /listening/, port: fakePort });
const a = await gateway(resolve(dirA!), fakePort);
const b = await gateway(resolve(dirB!), fakePort);
if (process.env.BENCH_PIN === "1") {
  for (const pid of [process.pid, fake.child.pid!]) pin(pid, 0);
  for (const g of [a, b]) pin(g.child.pid!, 1);
}
const body = bodies[path]!(stream === "true");
const headers = { "x-mcp-servers": "none", "anthropic-version": "2023-06-01" };
try {
  for (const g of [a, b]) await throughput(`http://127.0.0.1:${g.port}${path}`, body, 16, 2, headers);
  if (LATENCY) await latencyRounds(a, b, body, headers);
  else await cpuRounds(a, b, body, headers);
} finally {
  await Promise.all([a.stop(), b.stop(), fake.stop()]);
}

async function cpuRounds(a: Running, b: Running, body: string, headers: Record<string, string>): Promise<void> {
  const least = { A: Infinity, B: Infinity };
  for (let i = 0; i < Number(rounds); i++) {
    const line: string[] = [];
    // Alternating who goes first, so neither always runs right after the other.
    const order = i % 2 === 0 ? ([["A", a], ["B", b]] as const) : ([["B", b], ["A", a]] as const);
    for (const [name, g] of order) {
      const before = cpuSeconds(g.child.pid!);
      const t = await throughput(`http://127.0.0.1:${g.port}${path}`, body, 16, SECONDS, headers);
      const cpu = ((cpuSeconds(g.child.pid!) - before) * 1000) / t.total;
      least[name] = Math.min(least[name], cpu);
      line.push(`${name}: ${t.rps.toFixed(0)} req/s ${cpu.toFixed(3)} ms CPU/req${t.errors ? ` ${t.errors} errors` : ""}`);
    }
    process.stdout.write(`${line.join("   ")}\n`);
  }
  // The least-disturbed round of each: on a shared machine, other work only ever adds CPU.
  process.stdout.write(`least CPU/req: A ${least.A.toFixed(3)} ms, B ${least.B.toFixed(3)} ms (B/A ${(least.B / least.A).toFixed(2)})\n`);
}

/** p50 and first byte at one connection, each round in turns; the median of the rounds' p50s at the end. */
async function latencyRounds(a: Running, b: Running, body: string, headers: Record<string, string>): Promise<void> {
  const p50s: Record<"A" | "B", number[]> = { A: [], B: [] };
  for (let i = 0; i < Number(rounds); i++) {
    const line: string[] = [];
    const order = i % 2 === 0 ? ([["A", a], ["B", b]] as const) : ([["B", b], ["A", a]] as const);
    for (const [name, g] of order) {
      const l = await sequentialLatency(`http://127.0.0.1:${g.port}${path}`, body, REQUESTS, headers);
      p50s[name].push(l.p50);
      line.push(`${name}: p50 ${l.p50.toFixed(3)} ms first byte ${l.ttfbP50!.toFixed(3)} ms`);
    }
    process.stdout.write(`${line.join("   ")}\n`);
  }
  process.stdout.write(`median p50: A ${median(p50s.A).toFixed(3)} ms, B ${median(p50s.B).toFixed(3)} ms (B/A ${(median(p50s.B) / median(p50s.A)).toFixed(2)})\n`);
}

/** Every thread of `pid` on CPU `cpu` (BENCH_PIN). */
function pin(pid: number, cpu: number): void {
  const done = spawnSync("taskset", ["-apc", String(cpu), String(pid)], { stdio: "ignore" });
  if (done.status !== 0) throw new Error(`taskset could not pin ${pid} (BENCH_PIN needs util-linux's taskset)`);
}
