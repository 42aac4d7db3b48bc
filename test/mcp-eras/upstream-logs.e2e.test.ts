/**
 * Log messages of a 2026-07-28 upstream server reach the client whose request it serves: such a
 * server logs only at the level the request carries in `_meta` (none without one), so the
 * gateway sends the client's level along — a 2026-07-28 request's own, a 2025-11-25 session's
 * logging/setLevel. The upstream is the SDK 2.x reference server, whose test_logging_tool logs
 * at "info" through the request-scoped, level-gated channel.
 */
import { describe, expect, it } from "vitest";
import { Client as ModernClient, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport as ModernTransport, type LoggingLevel } from "@modelcontextprotocol/client";
import { CallToolResultSchema, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, textOf } from "../helpers/mcp-gateway-harness.ts";
import { useModernUpstream } from "./modern-upstream.ts";

const TOOL = "modern__test_logging_tool";
const LOGGED = /test_logging_tool ran/;

const upstream = useModernUpstream();

/** Calls the logging tool as a 2026-07-28 client (with `level` in the request's `_meta`, if any); the log data it got. */
async function modernCall(level: LoggingLevel | undefined): Promise<unknown[]> {
  const client = new ModernClient({ name: "logs-modern", version: "1.0.0" }, { capabilities: {}, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const logs: unknown[] = [];
  client.setNotificationHandler("notifications/message", (n) => void logs.push(n.params.data));
  await client.connect(new ModernTransport(upstream.gateway.mcpUrl));
  try {
    const result = await client.callTool({ name: TOOL, arguments: {}, ...(level ? { _meta: { [LOG_LEVEL_META_KEY]: level } } : {}) });
    expect(textOf(result)).toMatch(/logged/);
    return logs;
  } finally {
    await client.close();
  }
}

/** Calls the logging tool in a 2025-11-25 session (after logging/setLevel `level`, if any); the log data it got. */
async function legacyCall(level: LoggingLevel | undefined): Promise<unknown[]> {
  const logs: unknown[] = [];
  const { client } = await connectHttp(upstream.gateway.mcpUrl, {}, (c) => c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data)));
  try {
    if (level) await client.setLoggingLevel(level);
    const result = await client.callTool({ name: TOOL, arguments: {} }, CallToolResultSchema);
    expect(textOf(result)).toMatch(/logged/);
    return logs;
  } finally {
    await client.close();
  }
}

// A log message travels on the call's stream before its result, so it has arrived once the call
// has returned: the empty lists below are not a race.
describe("a 2026-07-28 upstream's log messages", () => {
  it("reach a 2026-07-28 client at the level of its request", async () => {
    expect(await modernCall("info")).toEqual([expect.stringMatching(LOGGED)]);
  });

  it("do not reach a 2026-07-28 client whose request asks for a higher level, or for none", async () => {
    expect(await modernCall("warning")).toEqual([]);
    expect(await modernCall(undefined)).toEqual([]);
  });

  it("reach a 2025-11-25 session at its logging/setLevel level", async () => {
    expect(await legacyCall("debug")).toEqual([expect.stringMatching(LOGGED)]);
  });

  it("do not reach a 2025-11-25 session whose level is higher, or that set none", async () => {
    expect(await legacyCall("error")).toEqual([]);
    expect(await legacyCall(undefined)).toEqual([]);
  });
});
