import { toolsOnTheWire } from "../../adapters/tools-wire.ts";
import { declareGatewayCapabilities, modelSurfaceCapabilities } from "../../mcp/client/capabilities.ts";
import { loadConfigFile, resolveConfigPath } from "../../core/config/index.ts";
import { createLogger } from "../../core/logger.ts";
import type { SchemaTarget } from "../../core/index.ts";
import { McpPool } from "../../mcp/pool.ts";
import type { CliArgs } from "../args.ts";

const FORMATS: readonly SchemaTarget[] = ["openai", "openai-strict", "anthropic", "gemini"];

/** Prints the aggregated tools as JSON on stdout; schema adjustments are listed on stderr. */
export async function toolsCommand(args: CliArgs): Promise<number> {
  const format = (args.format ?? "openai") as SchemaTarget;
  if (!FORMATS.includes(format)) {
    process.stderr.write(`--format: expected one of ${FORMATS.join(", ")}, got "${args.format}"\n`);
    return 2;
  }
  const config = await loadConfigFile(resolveConfigPath(args.config, process.env));
  // The same client capabilities as `serve` (and the same second look at what models may use),
  // so the tools printed are the tools a model gets; those only MCP clients get are named apart.
  const pool = new McpPool(config.servers, {
    logger: createLogger({ level: "warn" }),
    upstreamHandlers: declareGatewayCapabilities,
    modelCapabilities: modelSurfaceCapabilities(config.gateway.sampling?.model),
  });
  try {
    await pool.start();
    const { definitions, warnings } = pool.registry.forModels().normalized(format);
    process.stdout.write(`${JSON.stringify(toolsOnTheWire(definitions, format), null, 2)}\n`);
    for (const { tool, warning } of warnings) process.stderr.write(`warning: ${tool}: ${warning}\n`);
    const clientOnly = pool.registry.list().filter((t) => t.clientOnly).map((t) => t.name);
    if (clientOnly.length > 0) {
      process.stderr.write(`note: offered to MCP clients (/mcp, stdio) only, not to models — their servers list them only to clients that can answer elicitation or roots: ${clientOnly.join(", ")}\n`);
    }
    // A server whose first start failed may already be in its next attempt ("starting", with its error).
    const failed = pool.states().filter((s) => s.status === "failed" || s.status === "unavailable" || (s.status === "starting" && s.error !== undefined));
    for (const s of failed) process.stderr.write(`error: MCP server "${s.name}" is unavailable: ${s.error?.split("\n")[0]}\n`);
    // What `serve` reports as degraded in /health.
    const collisions = pool.emptyPrefixCollisions();
    for (const c of collisions) process.stderr.write(`error: prefix "" makes tool names collide: ${c.tools.map((t) => `${t.server}/${t.tool}`).join(", ")} all want "${c.name}"\n`);
    return failed.length > 0 || collisions.length > 0 ? 1 : 0;
  } finally {
    await pool.close();
  }
}
