import { loadConfigFile, resolveConfigPath } from "../../core/config/index.ts";
import { declareGatewayCapabilities, modelSurfaceCapabilities } from "../../mcp/client/capabilities.ts";
import { createLogger } from "../../core/logger.ts";
import { McpPool } from "../../mcp/pool.ts";
import { probeProvider } from "../../adapters/probe.ts";
import { describeProviderQuirks, resolveProviderQuirks } from "../../gateway/routing/providers.ts";
import type { CliArgs } from "../args.ts";
import { renderTable } from "../table.ts";

/** Validates the config, connects every server and provider; non-zero exit on any failure. */
export async function checkCommand(args: CliArgs): Promise<number> {
  const config = await loadConfigFile(resolveConfigPath(args.config, process.env));
  // Quirks are checked by the adapters' rules, after loading: a bad one is a config error here too.
  const quirksByProvider = resolveProviderQuirks(config.providers, config.path ?? "(inline)");
  process.stdout.write(`config ${config.path}: valid\n\n`);
  // The same client capabilities as `serve`, so the tools counted are the tools a model gets.
  // One start per server (`retry: false`): a server that failed is not retried in the background
  // while the others are still starting, so what the table shows is what each start did. (With
  // retries, a failed server could be read in the middle of its next attempt, "starting", and
  // check exited 0: the race behind the flaky test.)
  const pool = new McpPool(config.servers, {
    logger: createLogger({ level: "silent" }),
    upstreamHandlers: declareGatewayCapabilities,
    modelCapabilities: modelSurfaceCapabilities(config.gateway.sampling?.model),
    retry: false,
  });
  let failures = 0;
  try {
    // Waits for every server's start (each within its start timeout): each state is final.
    await pool.start();
    const offered = pool.registry.list();
    const rows = pool.states().map((s) => {
      const status = s.status;
      if (status !== "ready" && status !== "disabled") failures++;
      // What models get, then "+2 /mcp" for those only MCP clients get (the server lists them
      // only to clients that can answer elicitation or roots), then "of 14" when the server's
      // allow/deny filter hides some.
      const mine = offered.filter((t) => t.server === s.name);
      const clientOnly = mine.filter((t) => t.clientOnly).length;
      const tools = [String(mine.length - clientOnly), clientOnly > 0 ? ` +${clientOnly} /mcp` : "", mine.length === s.toolCount ? "" : ` of ${s.toolCount}`].join("");
      return [s.name, s.transport, status, tools, s.startupMs === undefined ? "" : String(s.startupMs), oneLine(s.error ?? "")];
    });
    process.stdout.write(`${renderTable(["server", "transport", "status", "tools", "startup ms", "error"], rows)}\n\n`);
    // What `serve` reports as degraded in /health: prefix "" making names collide.
    for (const collision of pool.emptyPrefixCollisions()) {
      failures++;
      const owners = collision.tools.map((t) => `${t.server}/${t.tool}`).join(", ");
      process.stdout.write(`error: prefix "" makes tool names collide: ${owners} all want "${collision.name}"\n`);
    }
    if (pool.emptyPrefixCollisions().length > 0) process.stdout.write("\n");
  } finally {
    await pool.close();
  }
  const providerRows = await Promise.all(
    Object.values(config.providers).map(async (provider) => {
      // The preset in its column; the switches in force on a line of their own under the row.
      const quirks = describeProviderQuirks(quirksByProvider.get(provider.name), provider.type);
      const preset = quirks.split(/[ :]/)[0]!;
      const notes = quirks === preset ? [] : [`quirks: ${quirks}`];
      if (provider.missingVariables.length > 0) {
        failures++;
        return { cells: [provider.name, provider.type, preset, "unavailable", "", `set ${provider.missingVariables.join(", ")}`], notes };
      }
      const probe = await probeProvider(provider, provider.timeoutMs);
      if (!probe.ok) failures++;
      return { cells: [provider.name, provider.type, preset, probe.ok ? "ok" : "failed", String(probe.ms), probe.ok ? "" : probe.detail], notes };
    }),
  );
  if (providerRows.length > 0) process.stdout.write(`${renderTable(["provider", "type", "quirks", "status", "ms", "error"], providerRows)}\n`);
  return failures > 0 ? 1 : 0;
}

/** A multi-line error (message, then the server's stderr tail) on one table row. */
function oneLine(text: string, max = 240): string {
  const flat = text.split("\n").map((l) => l.trim()).filter((l) => l !== "").join(" | ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
