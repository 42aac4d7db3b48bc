/**
 * The `subscriptions/listen` stream to a 2026-07-28 server is opened again when it ends: a
 * stateless server behind a load balancer ends every stream (gracefully) on each redeploy, and
 * the new instances may refuse the reopen for a while. The upstream is a real SDK 2.x server
 * (createMcpHandler over node:http on 127.0.0.1) that can be "redeployed": its streams end
 * gracefully and a new handler serves from then on.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { createMcpHandler, McpServer, type McpHttpHandler } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { resolveConfig } from "../../src/core/config/index.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { McpPool } from "../../src/mcp/pool.ts";

class RedeployableServer {
  readonly tools = new Set(["first"]);
  /** Listen requests to answer with 503 (the new instances are not up yet). */
  refuseListens = 0;
  /** Listen streams opened (the server holds them: a change is told on each). */
  openedListens = 0;
  private handler = this.deploy();
  private readonly http: Server = createServer(getRequestListener((request) => this.fetch(request)));

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.http.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}/mcp`;
  }

  private deploy(): McpHttpHandler {
    return createMcpHandler(
      () => {
        const server = new McpServer({ name: "redeployable", version: "1.0.0" });
        for (const name of this.tools) server.registerTool(name, { inputSchema: z.object({}) }, () => ({ content: [{ type: "text", text: name }] }));
        return server;
      },
      { legacy: "reject" },
    );
  }

  private async fetch(request: Request): Promise<Response> {
    const listen = request.headers.get("mcp-method") === "subscriptions/listen";
    if (listen && this.refuseListens > 0) {
      this.refuseListens--;
      return new Response("redeploying", { status: 503 });
    }
    const response = await this.handler.fetch(request);
    // The stream's subscription is made before the response is returned.
    if (listen && response.ok) this.openedListens++;
    return response;
  }

  /** Ends every listen stream gracefully, as a redeploy does; a new handler serves from now on. */
  async redeploy(): Promise<void> {
    const old = this.handler;
    this.handler = this.deploy();
    await old.close();
  }

  /** A new tool, told on the open listen streams. */
  addTool(name: string): void {
    this.tools.add(name);
    this.handler.notify.toolsChanged();
  }

  async close(): Promise<void> {
    await this.handler.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}

let server: RedeployableServer | undefined;
let pool: McpPool | undefined;

afterEach(async () => {
  await pool?.close();
  await server?.close();
  pool = server = undefined;
});

async function start(): Promise<{ server: RedeployableServer; pool: McpPool }> {
  server = new RedeployableServer();
  const url = await server.listen();
  const config = resolveConfig({ mcpServers: { s: { type: "http", url, era: "2026-07-28" } } }, {});
  pool = new McpPool(config.servers, { logger: silentLogger() });
  await pool.start();
  expect(pool.connection("s")?.upstream?.era).toBe("modern");
  expect(pool.registry.has("s__first")).toBe(true);
  // Hang guards (the stream is opened right after the server is ready), not timing assertions.
  await vi.waitFor(() => expect(server!.openedListens).toBe(1), { timeout: 10_000, interval: 10 });
  return { server, pool };
}

describe("the listen stream to a 2026-07-28 server", () => {
  it("is opened again when the server ends it gracefully: a later change is seen", async () => {
    const { server, pool } = await start();
    await server.redeploy();
    await vi.waitFor(() => expect(server.openedListens).toBe(2), { timeout: 10_000, interval: 10 });
    server.addTool("second");
    await vi.waitFor(() => expect(pool.registry.has("s__second")).toBe(true), { timeout: 10_000, interval: 10 });
  });

  it("is retried with backoff while the server refuses it; what changed meanwhile is seen once it is open", async () => {
    const { server, pool } = await start();
    server.refuseListens = 2;
    // The new deployment has a tool more: no stream was open to tell it.
    server.tools.add("second");
    await server.redeploy();
    await vi.waitFor(() => expect(server.openedListens).toBe(2), { timeout: 15_000, interval: 10 });
    expect(server.refuseListens).toBe(0);
    await vi.waitFor(() => expect(pool.registry.has("s__second")).toBe(true), { timeout: 10_000, interval: 10 });
    // And the reopened stream carries later changes.
    server.addTool("third");
    await vi.waitFor(() => expect(pool.registry.has("s__third")).toBe(true), { timeout: 10_000, interval: 10 });
  });
});
