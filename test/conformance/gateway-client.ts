/**
 * The gateway's upstream MCP client (src/mcp: McpPool, as `serve` runs it) as a client under
 * test of @modelcontextprotocol/conformance's client scenarios. The suite runs
 * `node --import tsx gateway-client.ts <server-url>` with MCP_CONFORMANCE_SCENARIO and, when a
 * revision is asked for, MCP_CONFORMANCE_PROTOCOL_VERSION. The gateway connects to the URL as to
 * a configured `http` server (the era pinned to that revision), lists its tools, and — but for
 * the list-only scenario — calls the first one, as the suite's own example client does.
 */
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import { callTool } from "../helpers/mcp-servers.ts";

const url = process.argv[2];
if (!url) throw new Error("usage: gateway-client.ts <server-url>");
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const era = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === "2026-07-28" ? "2026-07-28" : "2025-11-25";

const config = resolveConfig({ mcpServers: { under_test: { type: "http", url, era, probeModelTools: false, prefix: "" } } }, {});
const pool = new McpPool(config.servers, { logger: silentLogger(), retry: false });
try {
  await pool.start();
  const state = pool.states()[0];
  if (state?.status !== "ready") throw new Error(`the server did not become ready: ${state?.error ?? state?.status}`);
  const first = pool.registry.list()[0];
  if (first && scenario !== "json-schema-ref-no-deref") await callTool(pool.registry, first.name, { a: 2, b: 3 });
} finally {
  await pool.close();
}
