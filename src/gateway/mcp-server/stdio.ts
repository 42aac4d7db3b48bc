/**
 * The gateway as an MCP server on stdin/stdout: one client, one SDK Server. stdout carries only
 * protocol messages (the logger writes to stderr). `closed` resolves, with the reason, when the
 * client goes away (stdin ends, or the transport closes) or `stop()` is called.
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Readable, Writable } from "node:stream";
import type { McpHub } from "./hub.ts";

export type StdioEnd = "stdin closed" | "stopped" | "transport closed";

export interface StdioServing {
  closed: Promise<StdioEnd>;
  stop(): Promise<void>;
}

export async function serveStdio(hub: McpHub, stdin: Readable = process.stdin, stdout: Writable = process.stdout): Promise<StdioServing> {
  // The only client of this gateway: its roots are relayed, and it gets what no request claims.
  const session = hub.createSession("stdio", { kind: "stdio" });
  const transport = new StdioServerTransport(stdin, stdout);
  let resolveClosed!: (reason: StdioEnd) => void;
  const closed = new Promise<StdioEnd>((resolve) => (resolveClosed = resolve));
  const onServerClose = session.server.onclose;
  session.server.onclose = () => {
    onServerClose?.();
    resolveClosed("transport closed");
  };
  const end = async (reason: StdioEnd) => {
    stdin.off("end", onEnd);
    resolveClosed(reason);
    await session.server.close().catch(() => undefined);
  };
  const onEnd = () => void end("stdin closed");
  stdin.once("end", onEnd);
  await session.server.connect(transport);
  return { closed, stop: () => end("stopped") };
}
