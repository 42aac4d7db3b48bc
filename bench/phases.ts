/**
 * Where a request's latency goes at one connection: the compiled gateway in this process, the
 * benchmark's fake upstream in another, sequential requests, and the moments each one passes
 * (Node's and undici's `diagnostics_channel` events, and the gateway's first write of the answer),
 * as medians since the client sent the request. The CPU profile (`bench:profile`) says what costs
 * CPU under load; this says what stands between a request and its answer: a wait for the next
 * turn of the event loop, or work done before the answer that could come after it
 * (docs/performance.md: the body read from the buffer, the access line after the answer).
 *
 *   npx tsx bench/phases.ts [--door chat|messages|responses] [--stream] [--requests N] [--rounds N] [dir ...]
 *
 * Each `dir` is a checkout whose dist/ is built (this one by default); with several, their rounds
 * run in turns (a build for each round, a fresh gateway each time), as bench/ab.ts does for CPU.
 * The client runs in this process too: the first and the last phase include its own work.
 */
import dc from "node:diagnostics_channel";
import { Agent, request, type ServerResponse } from "node:http";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { compiledIsCurrent } from "../bin/build-state.js";
import { doorRequest, fakeProviders, type DoorRequest } from "./door-requests.ts";
import { median } from "./measure.ts";
import { benchNode, freePort, start } from "./processes.ts";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The moments of one request, in ms since the client sent it (in the order they happen). */
const MOMENTS = ["arrived", "upstream request made", "upstream request sent", "upstream head", "upstream end", "answer written", "client's first byte"] as const;
type Moment = (typeof MOMENTS)[number];

let seen: Partial<Record<Moment, number>> = {};
const mark = (moment: Moment) => () => {
  seen[moment] ??= performance.now();
};
dc.subscribe("http.server.request.start", (message) => {
  mark("arrived")();
  // The gateway's first write of the answer (its head leaves with it).
  const response = (message as { response: ServerResponse }).response;
  for (const method of ["write", "end"] as const) {
    const original = response[method].bind(response) as (...args: unknown[]) => unknown;
    (response as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (args[0] !== undefined && typeof args[0] !== "function") mark("answer written")();
      return original(...args);
    };
  }
});
dc.subscribe("undici:request:create", mark("upstream request made"));
dc.subscribe("undici:client:sendHeaders", mark("upstream request sent"));
dc.subscribe("undici:request:headers", mark("upstream head"));
dc.subscribe("undici:request:trailers", mark("upstream end"));

interface Gateway {
  url: string;
  close(): Promise<void>;
}

/** A gateway of the checkout at `dir` (its dist/), in this process, over the fake upstream. */
async function startGateway(dir: string, fakePort: number): Promise<Gateway> {
  const load = async <T>(path: string) => (await import(pathToFileURL(join(dir, "dist", path)).href)) as T;
  const { resolveConfig } = await load<typeof import("../src/core/config/index.ts")>("core/config/index.js");
  const { createLogger } = await load<typeof import("../src/core/logger.ts")>("core/logger.js");
  const { createGateway } = await load<typeof import("../src/gateway/runtime.ts")>("gateway/runtime.js");
  const { listen } = await load<typeof import("../src/gateway/http/listen.ts")>("gateway/http/listen.js");
  const config = resolveConfig({ providers: fakeProviders(fakePort), gateway: { maxConcurrentRequests: 4096, retries: { attempts: 1 } } }, process.env);
  // Info level as in production (the access line is part of what a request does), written nowhere.
  const gateway = await createGateway(config, { logger: createLogger({ level: "info", destination: pino.destination({ dest: "/dev/null", sync: false }) }) });
  const server = await listen(gateway.app, "127.0.0.1", 0);
  return {
    url: server.url,
    close: async () => {
      await server.close(1000);
      await gateway.close();
    },
  };
}

/** One request; the moments it passed, since it was sent. */
function timed(url: string, door: DoorRequest, agent: Agent): Promise<Partial<Record<Moment, number>>> {
  seen = {};
  return new Promise((done, fail) => {
    const sent = performance.now();
    const req = request(url, { method: "POST", agent, headers: { "content-type": "application/json", ...door.headers } }, (res) => {
      res.once("data", mark("client's first byte"));
      res.resume();
      res.once("end", () => {
        if (res.statusCode !== 200) return fail(new Error(`HTTP ${res.statusCode}`));
        done(Object.fromEntries(Object.entries(seen).map(([moment, at]) => [moment, at - sent])));
      });
    });
    req.once("error", fail);
    req.end(door.body);
  });
}

async function round(dir: string, fakePort: number, door: DoorRequest, requests: number): Promise<Partial<Record<Moment, number>>[]> {
  const gateway = await startGateway(dir, fakePort);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const url = `${gateway.url}${door.path}`;
    // Warm-up: the JIT, the connections.
    for (let i = 0; i < 500; i++) await timed(url, door, agent);
    const rows: Partial<Record<Moment, number>>[] = [];
    for (let i = 0; i < requests; i++) rows.push(await timed(url, door, agent));
    return rows;
  } finally {
    agent.destroy();
    await gateway.close();
  }
}

/** Each moment's median over the rows, and the phase before it (the median moment less the one before). */
function report(rows: Partial<Record<Moment, number>>[]): string {
  let before = 0;
  const lines: string[] = [];
  for (const moment of MOMENTS) {
    const at = rows.map((row) => row[moment]).filter((value): value is number => value !== undefined);
    if (at.length === 0) continue;
    const value = median(at);
    lines.push(`  ${moment.padEnd(24)} ${value.toFixed(3)} ms  (+${(value - before).toFixed(3)})`);
    before = value;
  }
  return lines.join("\n");
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      door: { type: "string", default: "chat" },
      stream: { type: "boolean", default: false },
      requests: { type: "string", default: "3000" },
      rounds: { type: "string", default: "2" },
    },
  });
  const door = doorRequest(values.door!, values.stream!, "Say hello");
  const dirs = positionals.length > 0 ? positionals.map((dir) => resolve(dir)) : [root];
  if (dirs.includes(root) && !compiledIsCurrent(root)) throw new Error("dist/ is missing or older than src/: run `npm run build`");
  const fakePort = await freePort();
  const fake = await start(benchNode(), [join(root, "bench", "fake-upstream.mjs")], { env: { PORT: String(fakePort) }, ready: /listening/, port: fakePort });
  try {
    const rows = new Map<string, Partial<Record<Moment, number>>[]>(dirs.map((dir) => [dir, []]));
    for (let r = 0; r < Number(values.rounds); r++) {
      // In turns, the order alternating: a machine that slows down mid-run weighs on both.
      const order = r % 2 === 0 ? dirs : [...dirs].reverse();
      for (const dir of order) rows.get(dir)!.push(...(await round(dir, fakePort, door, Number(values.requests))));
    }
    for (const [dir, all] of rows) process.stdout.write(`${dir} (${values.door}${values.stream ? ", streamed" : ""}, ${all.length} requests, medians since the client sent each):\n${report(all)}\n`);
  } finally {
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
