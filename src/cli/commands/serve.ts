import cluster from "node:cluster";
import { loadConfigFile, resolveConfigPath, type GatewayConfig } from "../../core/config/index.ts";
import { createLogger } from "../../core/logger.ts";
import { configSecrets, createGateway } from "../../gateway/runtime.ts";
import { listen } from "../../gateway/http/listen.ts";
import type { CliArgs } from "../args.ts";
import { runWorkers, type ListeningMessage } from "./workers.ts";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);
/** How long in-flight requests get to finish after SIGTERM/SIGINT. */
const SHUTDOWN_DEADLINE_MS = 10_000;

export async function serveCommand(args: CliArgs): Promise<number> {
  const config = await loadConfigFile(resolveConfigPath(args.config, process.env));
  const host = args.host ?? config.gateway.host;
  const port = args.port ?? config.gateway.port;
  if (!LOOPBACK.has(host) && config.gateway.apiKeys.length === 0 && !args.allowUnauthenticated) {
    process.stderr.write(
      `Refusing to listen on ${host} without authentication: set gateway.apiKeys in the config, or pass --allow-unauthenticated.\n`,
    );
    return 2;
  }
  const workers = args.workers ?? 1;
  if (workers > 1 && config.gateway.store.kind === "memory") {
    process.stderr.write(
      `mcp-gateway: --workers ${workers} needs a shared state store: with gateway.store "memory" each worker would keep its own hidden steps, stored responses, limit counters and /mcp sessions, and a follow-up landing on another worker would not find them. Set gateway.store to { "redis": { "url": "redis://…" } }, or run one process (--workers 1).\n`,
    );
    return 2;
  }
  // The primary of --workers N forks the workers and serves nothing itself; each worker (the
  // same command line, run again by node:cluster) is a whole gateway.
  if (workers > 1 && cluster.isPrimary) return runWorkers({ count: workers, logger: createLogger({ secrets: configSecrets(config) }) });
  return serveOne(config, host, port);
}

/** One gateway process: `serve`, or one worker of `serve --workers N`. */
async function serveOne(config: GatewayConfig, host: string, port: number): Promise<number> {
  // Listens at once: the MCP servers connect in the background (each within its start timeout),
  // their tools offered as they become ready; /health shows each one's state, /ready when all
  // first starts have ended.
  const worker = cluster.isWorker ? cluster.worker : undefined;
  const gateway = await createGateway(config, worker ? { logger: createLogger({ secrets: configSecrets(config) }).child({ worker: worker.id }) } : {});
  const server = await listen(gateway.app, host, port);
  gateway.logger.info(
    { url: server.url, config: config.path, startingServers: gateway.pool.startingServers() },
    `mcp-gateway listening on ${server.url}`,
  );
  if (worker) process.send?.({ type: "mcp-gateway:listening", url: server.url } satisfies ListeningMessage);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      // Before anything else: an MCP server that the same signal stopped (sent to the whole
      // process group) must not be started again, nor one whose retry was due.
      gateway.pool.stopRestarts();
      // Stop accepting (idle connections close at once), then say so; MCP requests in progress
      // get the same deadline to answer, then the MCP sessions end (their GET streams would hold
      // the close until the deadline).
      const closing = server.close(SHUTDOWN_DEADLINE_MS);
      // The web view's live streams never end on their own: they would hold the close until the deadline.
      gateway.observability.endStreams();
      gateway.logger.info({ signal }, "shutting down: finishing in-flight requests");
      await gateway.mcpHttp.close(SHUTDOWN_DEADLINE_MS);
      await closing;
      await gateway.close();
      gateway.logger.info("stopped");
      resolve(0);
    };
    // `on`, not `once`: a second signal during shutdown must not kill the process before the
    // MCP servers are closed (stop() ignores it).
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));
  });
}
