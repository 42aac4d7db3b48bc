/**
 * The gateway as an MCP server on stdin/stdout: one client, of either era (the SDK's serveStdio
 * decides it from the client's opening: `initialize` is a 2025-11-25 client, a request with the
 * 2026-07-28 `_meta` envelope or `server/discover` a 2026-07-28 one). stdout carries only
 * protocol messages (the logger writes to stderr). `closed` resolves, with the reason, when the
 * client goes away (stdin ends, or the transport closes) or `stop()` is called.
 *
 * A 2025-11-25 client is the hub's "stdio" session (the gateway's only client: its roots are
 * relayed, and it gets what no request claims). A 2026-07-28 client gets the per-request server
 * of ./modern-server.ts, pinned for the connection: list changes and resource updates reach
 * its subscriptions/listen stream, questions of upstream servers come back as InputRequiredResults.
 */
import type { Server, ServerNotifier } from "@modelcontextprotocol/server";
import { serveStdio as serveSdkStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Readable, Writable } from "node:stream";
import type { McpHub } from "./hub.ts";
import { InputExchanges } from "./input-exchange.ts";
import { modernServer, publishChange } from "./modern-server.ts";

export type StdioEnd = "stdin closed" | "stopped" | "transport closed";

export interface StdioServing {
  closed: Promise<StdioEnd>;
  stop(): Promise<void>;
}

/** The change notifications of a 2026-07-28 stdio connection, through its server (the SDK routes them to its listen stream). */
function serverNotifier(server: Server, onError: (error: unknown) => void): ServerNotifier {
  return {
    toolsChanged: () => void server.sendToolListChanged().catch(onError),
    promptsChanged: () => void server.sendPromptListChanged().catch(onError),
    resourcesChanged: () => void server.sendResourceListChanged().catch(onError),
    resourceUpdated: (uri) => void server.sendResourceUpdated({ uri }).catch(onError),
  };
}

export async function serveStdio(hub: McpHub, stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<StdioServing> {
  let resolveClosed!: (reason: StdioEnd) => void;
  const closed = new Promise<StdioEnd>((resolve) => (resolveClosed = resolve));
  const exchanges = new InputExchanges({ timeoutMs: hub.clientRequestTimeoutMs, logger: hub.logger });
  const stopRelaying: (() => void)[] = [];
  const transport = new StdioServerTransport(stdin, stdout);
  const handle = serveSdkStdio(
    ({ era }) => {
      // (The SDK may build an instance for a client's server/discover probe, and discard it if
      // the client then opens with initialize.)
      if (era === "legacy") return hub.createSession("stdio", { kind: "stdio" }).server;
      const server = modernServer({ hub, exchanges });
      const notifier = serverNotifier(server, (error) => hub.logger.debug({ err: String(error) }, "change notification not delivered on stdio"));
      stopRelaying.push(hub.onBroadcast((notification) => publishChange(notifier, notification)));
      return server;
    },
    { transport, onerror: (error) => hub.logger.debug({ err: error.message }, "stdio MCP error") },
  );
  // The connection is gone when its transport closes (the SDK entry, which owns it, set its
  // onclose synchronously; an instance's own close may be a discarded probe instance's).
  const entryOnClose = transport.onclose;
  transport.onclose = () => {
    entryOnClose?.();
    // The SDK's stdio transport closes itself when stdin ends.
    resolveClosed(stdin.readableEnded ? "stdin closed" : "transport closed");
  };
  const end = async (reason: StdioEnd) => {
    stdin.off("end", onEnd);
    resolveClosed(reason);
    for (const stop of stopRelaying) stop();
    exchanges.close();
    await handle.close().catch(() => undefined);
  };
  const onEnd = () => void end("stdin closed");
  stdin.once("end", onEnd);
  return { closed, stop: () => end("stopped") };
}
