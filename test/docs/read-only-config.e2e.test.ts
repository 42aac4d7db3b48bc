/**
 * The shipped mcp.config.json and the README's example config give models a read-only
 * server-filesystem: the real server is started with each config's tool filter, and every tool
 * it lists as writing (annotations.readOnlyHint not true) must be hidden by the pool's
 * allow/deny filter, while its reading tools stay offered.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { parseConfigText, type GatewayConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { McpPool } from "../../src/mcp/pool.ts";
import { npmServer } from "../helpers/gateway-harness.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const folder = mkdtempSync(join(tmpdir(), "mcpgw-readonly-"));
const env = { GATEWAY_KEY: "k", OPENAI_API_KEY: "k", ANTHROPIC_API_KEY: "k", REMOTE_TOKEN: "k" };

/** The README's example mcp.config.json: the jsonc block of its Configuration section. */
function readmeExample(): string {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Configuration"));
  const block = /```jsonc\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error("no jsonc block in README's Configuration section");
  return block[1]!;
}

const configs: [string, () => GatewayConfig][] = [
  ["mcp.config.json", () => parseConfigText(readFileSync(join(root, "mcp.config.json"), "utf8"), env, "mcp.config.json")],
  ["README.md's example", () => parseConfigText(readmeExample(), env, "README.md")],
];

/** Every tool of the real server-filesystem, as it lists them itself. */
let allTools: Tool[] = [];

beforeAll(async () => {
  const { command, args } = npmServer("server-filesystem", folder);
  const client = new Client({ name: "read-only-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  allTools = (await client.listTools()).tools;
  await client.close();
});


describe("server-filesystem's writing tools", () => {
  it("are the ones the issue names, by the server's own annotations", () => {
    const writing = allTools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
    expect(writing.sort()).toEqual(["create_directory", "edit_file", "move_file", "write_file"]);
    expect(allTools.length).toBeGreaterThan(writing.length);
  });
});

describe.each(configs)("%s", (_name, load) => {
  it("runs server-filesystem read-only: every writing tool hidden by its filter, every reading tool offered", async () => {
    const config = load();
    const files = config.servers.find((s) => s.transport === "stdio" && s.args.some((a) => a.includes("server-filesystem")));
    expect(files, "a server-filesystem entry").toBeDefined();
    // The same entry (its tool filter, prefix…), run from node_modules instead of through npx.
    const { command, args } = npmServer("server-filesystem", folder);
    const pool = new McpPool([{ ...files!, command, args } as typeof files & {}], { logger: silentLogger() });
    try {
      await pool.start();
      expect(pool.states().map((s) => s.status)).toEqual(["ready"]);
      const offered = pool.registry
        .list()
        .filter((t) => t.server === files!.name)
        .map((t) => t.tool.name)
        .sort();
      const reading = allTools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
      const writing = allTools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
      expect(offered.filter((name) => writing.includes(name)), "writing tools offered").toEqual([]);
      expect(offered).toEqual(reading.sort());
    } finally {
      await pool.close();
    }
  });
});
