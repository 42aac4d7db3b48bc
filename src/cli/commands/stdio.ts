import { loadConfigFile, resolveConfigPath } from "../../core/config/index.ts";
import { createGateway } from "../../gateway/runtime.ts";
import { serveStdio } from "../../gateway/mcp-server/stdio.ts";
import type { CliArgs } from "../args.ts";

/** `mcp-gateway stdio`: the gateway as an MCP server on stdin/stdout; logs go to stderr only. */
export async function stdioCommand(args: CliArgs): Promise<number> {
  const config = await loadConfigFile(resolveConfigPath(args.config, process.env));
  // No HTTP port: the metrics and the web view would have no reader (see GatewayOptions.http).
  const gateway = await createGateway(config, { http: false });
  // One client, which often lists tools once right after initialize and may ignore
  // list_changed: it is served once every server's first start has ended (each within its start
  // timeout). Servers that come up later (restarts of failed ones) are announced with
  // notifications/tools/list_changed.
  await gateway.started;
  const serving = await serveStdio(gateway.mcp);
  gateway.logger.info({ config: config.path, tools: gateway.mcp.listTools().length }, "mcp-gateway serving MCP on stdio");
  const stop = (signal: NodeJS.Signals) => {
    gateway.logger.info({ signal }, "signal received");
    void serving.stop();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // The signal handlers stay: a SIGTERM while shutting down must not cut the MCP servers' cleanup short.
  const reason = await serving.closed;
  await gateway.close();
  gateway.logger.info({ reason }, "stopped");
  return 0;
}
