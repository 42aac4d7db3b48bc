/**
 * A/B on `/mcp`: two builds of the gateway (`node <dir>/bin/mcp-gateway.js serve`), each fronting
 * one server-everything over Streamable HTTP, under the same sequential `tools/call`s in turns
 * (an SDK 1.x client, as `npm run bench` calls them): each gateway's CPU per forwarded call and
 * the calls' p50, per round, and the least CPU and median p50 of each at the end. bench/ab.ts
 * does the same for the front doors.
 *
 *   npx tsx bench/ab-mcp.ts <dirA> <dirB> [rounds] [calls per round]
 *
 * Each directory needs `dist/.build-stamp` newer than its `src/` (see bench/ab.ts).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { median, percentile } from "./measure.ts";
import { benchNode, cpuSeconds, freePort, start, startEverything, type Running } from "./processes.ts";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const [dirA, dirB, rounds = "6", calls = "1000"] = process.argv.slice(2);
if (!dirA || !dirB) throw new Error("usage: npx tsx bench/ab-mcp.ts <dirA> <dirB> [rounds] [calls per round]");

async function gateway(dir: string, everythingPort: number): Promise<Running> {
  const port = await freePort();
  const config = join(mkdtempSync(join(tmpdir(), "mcpgw-ab-mcp-")), "mcp.config.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { type: "http", url: `http://127.0.0.1:${everythingPort}/mcp` } }, gateway: { port } }));
  return start(benchNode(), [join(resolve(dir), "bin", "mcp-gateway.js"), "serve", "--config", config], {
    env: { LOG_LEVEL: "info" },
    ready: /"server":"everything"[^\n]*"msg":"mcp server ready"/,
    port,
  });
}

/** `count` sequential calls of everything__echo through `g`: its CPU per call and the calls' p50 (ms). */
async function measure(g: Running, count: number): Promise<{ cpu: number; p50: number }> {
  const client = new Client({ name: "ab-mcp", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${g.port}/mcp`)));
  try {
    const times: number[] = [];
    const before = cpuSeconds(g.child.pid!);
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      await client.callTool({ name: "everything__echo", arguments: { message: "bench" } });
      times.push(performance.now() - t);
    }
    const cpu = ((cpuSeconds(g.child.pid!) - before) * 1000) / count;
    times.sort((x, y) => x - y);
    return { cpu, p50: percentile(times, 50) };
  } finally {
    await client.close();
  }
}

const everything = await startEverything(root);
const a = await gateway(dirA, everything.port);
const b = await gateway(dirB, everything.port);
const seen: Record<"A" | "B", { cpu: number[]; p50: number[] }> = { A: { cpu: [], p50: [] }, B: { cpu: [], p50: [] } };
try {
  // Warm, as the bench warms /mcp before its timed calls.
  for (const g of [a, b]) await measure(g, 500);
  for (let i = 0; i < Number(rounds); i++) {
    // Alternating who goes first, so neither always runs right after the other.
    const order = i % 2 === 0 ? ([["A", a], ["B", b]] as const) : ([["B", b], ["A", a]] as const);
    const line: string[] = [];
    for (const [name, g] of order) {
      const { cpu, p50 } = await measure(g, Number(calls));
      seen[name].cpu.push(cpu);
      seen[name].p50.push(p50);
      line.push(`${name}: ${cpu.toFixed(3)} ms CPU/call, p50 ${p50.toFixed(2)} ms`);
    }
    process.stdout.write(`${line.join("   ")}\n`);
  }
  const least = (name: "A" | "B") => Math.min(...seen[name].cpu);
  process.stdout.write(`least CPU/call: A ${least("A").toFixed(3)} ms, B ${least("B").toFixed(3)} ms (B/A ${(least("B") / least("A")).toFixed(2)})\n`);
  process.stdout.write(`median p50: A ${median(seen.A.p50).toFixed(2)} ms, B ${median(seen.B.p50).toFixed(2)} ms (B/A ${(median(seen.B.p50) / median(seen.A.p50)).toFixed(2)})\n`);
} finally {
  await Promise.all([a.stop(), b.stop(), everything.stop()]);
}
