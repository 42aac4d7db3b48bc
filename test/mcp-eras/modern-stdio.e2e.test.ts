/**
 * `mcp-gateway stdio` for a 2026-07-28 client: an SDK 2.x Client pinned to the new era runs the
 * gateway as its stdio server (the SDK probes with server/discover first), beside the 2025-11-25
 * clients the stdio tests already cover.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { everythingServer, fixtureServer, GATEWAY_BIN, ROOT, signal, textOf, writeConfig } from "../helpers/mcp-gateway-harness.ts";

const config = writeConfig({ mcpServers: { everything: everythingServer(), legacyfix: fixtureServer() } });
let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  client = new Client({ name: "modern-stdio", version: "1.0.0" }, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { name: "Ada", check: true, email: "ada@example.com" } }));
  transport = new StdioClientTransport({ command: process.execPath, args: [GATEWAY_BIN, "stdio", "--config", config.path], cwd: ROOT, stderr: "pipe" });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
  config.remove();
});

describe("a 2026-07-28 client of mcp-gateway stdio", () => {
  it("speaks 2026-07-28 with it and calls an upstream tool", async () => {
    expect(client.getProtocolEra()).toBe("modern");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["everything__echo", "legacyfix__probe_add"]));
    expect(textOf(await client.callTool({ name: "everything__echo", arguments: { message: "over stdio" } }))).toBe("Echo: over stdio");
  });

  it("answers an upstream elicitation through an InputRequiredResult", async () => {
    const result = await client.callTool({ name: "everything__trigger-elicitation-request", arguments: {} });
    expect(textOf(result)).toContain("- Name: Ada");
  });

  it("gets list changes on its subscriptions/listen stream", async () => {
    const changed = signal();
    client.setNotificationHandler("notifications/prompts/list_changed", () => changed.resolve());
    const subscription = await client.listen({ promptsListChanged: true });
    await client.callTool({ name: "legacyfix__probe_add", arguments: { kind: "prompt", name: "added_over_stdio" } });
    await changed.promise;
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toContain("legacyfix__added_over_stdio");
    await subscription.close();
  });
});
