/** Starts a real gateway (config -> MCP servers -> HTTP on 127.0.0.1:<free port>) for tests. */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { createGateway, type Gateway } from "../../src/gateway/runtime.ts";
import { listen } from "../../src/gateway/http/listen.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");

/** A server entry running an installed MCP server package directly with node (no npx). */
export function npmServer(pkg: "server-everything" | "server-filesystem" | "server-memory", ...args: string[]) {
  return { command: process.execPath, args: [join(root, "node_modules", "@modelcontextprotocol", pkg, "dist", "index.js"), ...args] };
}

export interface RunningGateway {
  url: string;
  gateway: Gateway;
  close(): Promise<void>;
}

/**
 * `waitForServers` (default true): resolve once every MCP server's first start has ended, as
 * most tests want; false returns as soon as the gateway listens (servers still starting).
 */
export async function startGateway(
  json: Record<string, unknown>,
  options: { heartbeatMs?: number; env?: Record<string, string>; waitForServers?: boolean } = {},
): Promise<RunningGateway> {
  const config = resolveConfig({ mcpServers: { everything: npmServer("server-everything") }, ...json }, options.env ?? {});
  const gateway = await createGateway(config, { logger: silentLogger(), ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}) });
  const server = await listen(gateway.app, "127.0.0.1", 0);
  if (options.waitForServers !== false) await gateway.started;
  return {
    url: server.url,
    gateway,
    async close() {
      await server.close(200);
      await gateway.close();
    },
  };
}
