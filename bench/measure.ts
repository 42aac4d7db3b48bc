/** Load generation and statistics for the benchmark. */
import autocannon from "autocannon";
import { Agent, request } from "node:http";

export interface Throughput {
  rps: number;
  /** Requests completed in the run. */
  total: number;
  p50: number;
  p99: number;
  errors: number;
}

/** Requests/s and latency at `connections` for `seconds` (autocannon, keep-alive). */
export async function throughput(url: string, body: string, connections: number, seconds: number, headers: Record<string, string> = {}): Promise<Throughput> {
  const result = await autocannon({ url, method: "POST", headers: { "content-type": "application/json", ...headers }, body, connections, duration: seconds });
  return { rps: result.requests.average, total: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
}

export interface Latency {
  p50: number;
  p99: number;
  mean: number;
  /** Time to first byte of the body, when measured. */
  ttfbP50?: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** One request; resolves with total time and time to the first body byte, in ms. */
function timed(url: string, body: string, headers: Record<string, string>): Promise<{ total: number; ttfb: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let ttfb = 0;
    const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...headers } }, (res) => {
      res.on("data", () => {
        if (ttfb === 0) ttfb = performance.now() - started;
      });
      res.on("end", () => (res.statusCode === 200 ? resolve({ total: performance.now() - started, ttfb }) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The middle value (the upper one of an even count), unsorted input left as it is. */
export function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

/** Sequential requests on one keep-alive connection: precise per-request latency (sub-ms). */
export async function sequentialLatency(url: string, body: string, count: number, headers: Record<string, string> = {}): Promise<Latency> {
  for (let i = 0; i < Math.min(50, count); i++) await timed(url, body, headers); // warm-up
  const totals: number[] = [];
  const ttfbs: number[] = [];
  for (let i = 0; i < count; i++) {
    const { total, ttfb } = await timed(url, body, headers);
    totals.push(total);
    ttfbs.push(ttfb);
  }
  totals.sort((a, b) => a - b);
  ttfbs.sort((a, b) => a - b);
  return { p50: percentile(totals, 50), p99: percentile(totals, 99), mean: totals.reduce((a, b) => a + b, 0) / totals.length, ttfbP50: percentile(ttfbs, 50) };
}
