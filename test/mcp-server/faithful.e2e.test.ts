/**
 * Faithfulness, item by item: server-everything's tools, resources, templates and prompts as a
 * client sees them directly, and through the gateway (namespaced by default, unchanged with
 * `prefix: ""`). Plus the `chat` tool's presence rules.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, EVERYTHING_SERVER, everythingServer, ROOT, startMcpGateway, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { pino } from "pino";
import { resolveConfig } from "../../src/core/config/index.ts";
import { createGateway } from "../../src/gateway/runtime.ts";

/** What the gateway declares to upstream servers (some of everything's tools depend on it). */
const gatewayLikeCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

interface Listing {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

async function listAll(client: Client): Promise<Listing> {
  const all = async <T>(page: (cursor?: string) => Promise<{ items: T[]; next?: string | undefined }>) => {
    const items: T[] = [];
    let cursor: string | undefined;
    do {
      const result = await page(cursor);
      items.push(...result.items);
      cursor = result.next;
    } while (cursor);
    return items;
  };
  return {
    tools: await all(async (cursor) => {
      const r = await client.listTools(cursor ? { cursor } : {});
      return { items: r.tools, next: r.nextCursor };
    }),
    resources: await all(async (cursor) => {
      const r = await client.listResources(cursor ? { cursor } : {});
      return { items: r.resources, next: r.nextCursor };
    }),
    templates: await all(async (cursor) => {
      const r = await client.listResourceTemplates(cursor ? { cursor } : {});
      return { items: r.resourceTemplates, next: r.nextCursor };
    }),
    prompts: await all(async (cursor) => {
      const r = await client.listPrompts(cursor ? { cursor } : {});
      return { items: r.prompts, next: r.nextCursor };
    }),
  };
}

let direct: Listing;

beforeAll(async () => {
  const client = new Client({ name: "direct", version: "1.0.0" }, { capabilities: gatewayLikeCapabilities });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [EVERYTHING_SERVER], stderr: "ignore" }));
  try {
    direct = await listAll(client);
  } finally {
    await client.close();
  }
});

describe.each([
  { label: "namespaced (default prefix)", prefix: undefined, name: (n: string) => `everything__${n}` },
  { label: 'unchanged (prefix "")', prefix: "", name: (n: string) => n },
])("server-everything through the gateway, $label", ({ prefix, name }) => {
  let gw: McpGateway;
  let through: Listing;

  beforeAll(async () => {
    gw = await startMcpGateway({ mcpServers: { everything: everythingServer(prefix === undefined ? {} : { prefix }) } });
    const { client } = await connectHttp(gw.mcpUrl);
    through = await listAll(client);
    await client.close();
  });

  afterAll(async () => {
    await gw?.close();
  });

  it("lists every tool exactly as the server does, but for the name, and but those that must run as tasks", () => {
    expect(direct.tools.length).toBeGreaterThan(10);
    // The gateway does not support tasks: a tool that requires them could never be called through it.
    const callable = direct.tools.filter((t) => t.execution?.taskSupport !== "required");
    expect(callable.length).toBeLessThan(direct.tools.length);
    expect(through.tools.map((t) => t.name).sort()).toEqual(callable.map((t) => name(t.name)).sort());
    for (const tool of callable) expect(through.tools.find((t) => t.name === name(tool.name))).toEqual({ ...tool, name: name(tool.name) });
  });

  it("lists the same resources and templates, URIs unchanged", () => {
    expect(through.resources).toEqual(direct.resources);
    expect(through.templates).toEqual(direct.templates);
  });

  it("lists every prompt as the server does, named like its tools", () => {
    expect(through.prompts).toEqual(direct.prompts.map((p) => ({ ...p, name: name(p.name) })));
  });
});

describe("the chat tool's presence", () => {
  it("steps aside for a server's own tool named chat (prefix \"\"), and says so in the log", async () => {
    // A stdio server with one tool, "chat", written inline against the MCP SDK.
    const server = [
      'import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";',
      'import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";',
      'const s = new McpServer({ name: "chatty", version: "1.0.0" });',
      's.registerTool("chat", { description: "the server\'s own chat" }, async () => ({ content: [{ type: "text", text: "from the server" }] }));',
      "await s.connect(new StdioServerTransport());",
    ].join("\n");
    const lines: { msg: string; server?: string }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const config = resolveConfig(
      {
        mcpServers: { chatty: { command: process.execPath, args: ["--input-type=module", "-e", server], cwd: ROOT, prefix: "" } },
        providers: { fake: { type: "openai", baseURL: "http://127.0.0.1:9/v1", apiKey: "k" } },
      },
      {},
    );
    const gateway = await createGateway(config, { logger });
    await gateway.started;
    try {
      expect(gateway.mcp.listTools().filter((t) => t.name === "chat").map((t) => t.description)).toEqual(["the server's own chat"]);
      expect(lines).toContainEqual(expect.objectContaining({ server: "chatty", msg: expect.stringContaining('the gateway\'s own "chat" tool is hidden by server "chatty"') }));
    } finally {
      await gateway.close();
    }
  });

  it("is listed when a provider is configured, and not when gateway.chatTool is false or there is no provider", async () => {
    const provider = { providers: { fake: { type: "openai", baseURL: "http://127.0.0.1:9/v1", apiKey: "k" } } };
    for (const [config, listed] of [
      [provider, true],
      [{ ...provider, gateway: { chatTool: false } }, false],
      [{}, false],
    ] as const) {
      const gw = await startMcpGateway(config);
      try {
        const { client } = await connectHttp(gw.mcpUrl);
        expect((await client.listTools()).tools.some((t) => t.name === "chat")).toBe(listed);
        await client.close();
      } finally {
        await gw.close();
      }
    }
  });
});
