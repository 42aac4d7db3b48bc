/**
 * `serve --workers N`: N processes sharing one port (node:cluster). The primary serves nothing
 * itself: it forks the workers (each runs the whole gateway, as `serve` without --workers does:
 * its own MCP servers, the shared state in the store), starts another when one dies unexpectedly,
 * and on SIGTERM/SIGINT passes the signal on for a graceful stop and exits once every worker has.
 *
 * The connections are spread over the workers by the primary (round-robin, Node's default on
 * every platform but Windows). A worker that is stopping has closed its share of the port: new
 * connections go to the others.
 */
import cluster, { type Worker } from "node:cluster";
import type { Logger } from "../../core/logger.ts";
import { metricsForWorkers } from "../../gateway/observe/cluster-metrics.ts";

/** What a worker tells the primary once it listens. */
export interface ListeningMessage {
  type: "mcp-gateway:listening";
  url: string;
}

export function isListeningMessage(message: unknown): message is ListeningMessage {
  return typeof message === "object" && message !== null && (message as { type?: unknown }).type === "mcp-gateway:listening";
}

/** A worker that dies sooner than this after its start is crash-looping: its replacement waits. */
const STABLE_AFTER_MS = 10_000;
const MAX_RESTART_DELAY_MS = 30_000;
/** After the workers' own shutdown deadline, what is still running is killed. */
const KILL_AFTER_MS = 15_000;

export interface WorkersOptions {
  count: number;
  logger: Logger;
}

export function runWorkers({ count, logger }: WorkersOptions): Promise<number> {
  return new Promise<number>((resolve) => {
    const live = new Map<Worker, { startedAt: number; listening: boolean }>();
    let stopping = false;
    let announced = false;
    let exitCode = 0;
    let quickDeaths = 0;
    const pending = new Set<NodeJS.Timeout>();

    // A worker asked for /metrics asks here: every worker's metrics, aggregated.
    const metrics = metricsForWorkers();
    const fork = () => {
      const worker = cluster.fork();
      live.set(worker, { startedAt: Date.now(), listening: false });
      worker.on("message", (message: unknown) => metrics(worker, message));
      worker.on("message", (message: unknown) => {
        if (!isListeningMessage(message)) return;
        const state = live.get(worker);
        if (state) state.listening = true;
        const listening = [...live.values()].filter((s) => s.listening).length;
        if (!announced && listening === count) {
          announced = true;
          logger.info({ url: message.url, workers: count, pids: [...live.keys()].map((w) => w.process.pid) }, `mcp-gateway listening on ${message.url} with ${count} workers`);
        }
      });
    };

    const finishIfDone = () => {
      if (stopping && live.size === 0) {
        for (const timer of pending) clearTimeout(timer);
        logger.info({ exitCode }, "all workers stopped");
        resolve(exitCode);
      }
    };

    const stop = (signal: NodeJS.Signals, reason?: string) => {
      if (stopping) return;
      stopping = true;
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      logger.info({ signal, workers: live.size, ...(reason ? { reason } : {}) }, "shutting down: stopping the workers");
      // Each worker stops gracefully on the signal (a signal sent to the whole process group
      // reached them already; a second one is ignored).
      for (const worker of live.keys()) worker.process.kill(signal);
      const killer = setTimeout(() => {
        for (const worker of live.keys()) {
          logger.warn({ pid: worker.process.pid }, "worker still running after the shutdown deadline: killing it");
          worker.process.kill("SIGKILL");
        }
      }, KILL_AFTER_MS);
      killer.unref();
      finishIfDone();
    };

    cluster.on("exit", (worker, code, signal) => {
      const state = live.get(worker);
      live.delete(worker);
      if (stopping) {
        if (code !== 0 && code !== null) exitCode = exitCode || code;
        finishIfDone();
        return;
      }
      if (!state?.listening) {
        // It never got as far as listening (port in use, a bad config, no Redis module…):
        // another would fail the same way. Everything stops, with its exit code.
        logger.error({ pid: worker.process.pid, code, signal }, "a worker failed to start: stopping");
        exitCode = code || 1;
        stop("SIGTERM", "a worker failed to start");
        return;
      }
      const ranMs = Date.now() - state.startedAt;
      quickDeaths = ranMs < STABLE_AFTER_MS ? quickDeaths + 1 : 0;
      const delay = quickDeaths === 0 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 1000 * 2 ** (quickDeaths - 1));
      logger.warn({ pid: worker.process.pid, code, signal, ranMs, restartInMs: delay }, "a worker exited unexpectedly: starting another");
      const timer = setTimeout(() => {
        pending.delete(timer);
        if (!stopping) fork();
      }, delay);
      pending.add(timer);
    });

    // `on`, not `once`: a second signal must not kill the primary before its workers are done.
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
    for (let i = 0; i < count; i++) fork();
  });
}
