/**
 * `npm run bench:profile`: where the gateway's CPU goes for one scenario. Runs the gateway
 * in-process (from src) against the benchmark's fake upstream, samples it with the V8 profiler
 * while a separate process loads it, writes bench/profile.cpuprofile (open it in Chrome DevTools
 * or speedscope) and prints the gateway's CPU per request and its costliest functions and
 * packages (self time).
 *
 * The gateway is the compiled one (dist/, built first by the npm script), as `npm run bench` and
 * users run it: run from src through tsx, every named closure costs an extra `__name` call
 * (esbuild's keepNames), about 3% of a profile that is not the product's.
 * BENCH_PROFILE_SOURCES=1 profiles src instead.
 *
 *   npm run bench:profile -- [--door chat|messages|responses] [--stream] [--long] [--connections N] [--seconds N]
 *
 * --long asks the fake for 200-chunk answers (per-event cost; the chat door only: the fake answers
 * the others short); the default is a short answer.
 * --door picks the front door, each passing through to an upstream of its own protocol (the
 * doors' target compares their CPU); chat by default.
 */
import { spawn } from "node:child_process";
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { compiledIsCurrent } from "../bin/build-state.js";
import { doorRequest, fakeProviders } from "./door-requests.ts";
import { freePort, start } from "./processes.ts";
import { summarize } from "./profile-summary.ts";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));

/** The gateway's modules: compiled (dist/) unless BENCH_PROFILE_SOURCES is set. */
async function gatewayModules() {
  const sources = process.env.BENCH_PROFILE_SOURCES === "1";
  // The test bin/mcp-gateway.js makes before it runs dist/: a build older than a source is stale.
  if (!sources && !compiledIsCurrent(root)) {
    throw new Error("dist/ is missing or older than src/: run `npm run build` (npm run bench:profile does), or set BENCH_PROFILE_SOURCES=1");
  }
  const at = (path: string) => (sources ? `../src/${path}.ts` : `../dist/${path}.js`);
  return {
    ...((await import(at("core/config/index"))) as typeof import("../src/core/config/index.ts")),
    ...((await import(at("core/logger"))) as typeof import("../src/core/logger.ts")),
    ...((await import(at("gateway/runtime"))) as typeof import("../src/gateway/runtime.ts")),
    ...((await import(at("gateway/http/listen"))) as typeof import("../src/gateway/http/listen.ts")),
  };
}
const { values } = parseArgs({
  options: {
    stream: { type: "boolean", default: false },
    long: { type: "boolean", default: false },
    connections: { type: "string", default: "16" },
    seconds: { type: "string", default: "5" },
    door: { type: "string", default: "chat" },
  },
});

function load(url: string, seconds: string, body: string, headers: Record<string, string>): Promise<{ rps: number; total: number; p50: number; p99: number; errors: number }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [join(root, "bench", "load.mjs"), url, values.connections!, seconds, body, JSON.stringify(headers)], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (data: Buffer) => (out += data.toString()));
    child.once("exit", (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`load exited ${code}`))));
  });
}

async function main(): Promise<void> {
  // Checked before anything starts: a bad --door leaves no process behind.
  const { path, body, headers } = doorRequest(values.door!, values.stream!, values.long ? "long-answer" : "Say hello");
  const { resolveConfig, createLogger, createGateway, listen } = await gatewayModules();
  const fakePort = await freePort();
  const fake = await start(process.execPath, [join(root, "bench", "fake-upstream.mjs")], { env: { PORT: String(fakePort) }, ready: /listening/, port: fakePort });
  const config = resolveConfig({ providers: fakeProviders(fakePort), gateway: { maxConcurrentRequests: 4096, retries: { attempts: 1 } } }, process.env);
  // Info level as in production (the log line is part of the cost), written nowhere: the
  // summary is what this prints.
  const gateway = await createGateway(config, { logger: createLogger({ level: "info", destination: pino.destination({ dest: "/dev/null", sync: false }) }) });
  const server = await listen(gateway.app, "127.0.0.1", 0);
  const url = `${server.url}${path}`;
  try {
    await load(url, "1", body, headers); // warm-up: JIT, connection pools
    const session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    await session.post("Profiler.start");
    const cpu = process.cpuUsage();
    const result = await load(url, values.seconds!, body, headers);
    const used = process.cpuUsage(cpu);
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    const file = join(root, "bench", "profile.cpuprofile");
    writeFileSync(file, JSON.stringify(profile));
    const cpuMs = (used.user + used.system) / 1000 / Math.max(1, result.total);
    process.stdout.write(`${result.rps.toFixed(0)} req/s, ${result.errors} errors, ${cpuMs.toFixed(3)} ms of gateway CPU per request (profiler on)\n`);
    process.stdout.write(`${summarize(profile, root)}\nprofile written to ${file}\n`);
  } finally {
    await server.close(1000);
    await gateway.close();
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
