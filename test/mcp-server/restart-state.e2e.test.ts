/**
 * An upstream server that crashes and is restarted comes back as a new session that knows
 * nothing of what the gateway set up on the old one. The gateway re-applies, to that server
 * only, the resource subscriptions its clients hold and the logging level last set, and tells
 * its clients that the restarted server's resources and prompts may have changed.
 *
 * Real processes: the gateway in-process with /mcp over HTTP, SDK clients, and two copies of
 * test/helpers/stateful-server.ts (which log every subscribe/setLevel with their pid), one of
 * which is killed with SIGKILL.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { connectHttp, startMcpGateway, textOf, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { isAlive, logLines, tempDir } from "../helpers/mcp-servers.ts";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const STATEFUL_SERVER = join(ROOT, "test", "helpers", "stateful-server.ts");

function statefulServer(log: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: ["--import", "tsx", STATEFUL_SERVER], cwd: ROOT, env: { STATE_LOG: log }, ...extra };
}

const dir = tempDir("mcp-gw-restart-");
const logA = join(dir.path, "a.log");
const logB = join(dir.path, "b.log");

/** Polls until `check` passes (a generous bound: it is a hang guard, not a timing assertion). */
function until(check: () => void): Promise<void> {
  return vi.waitFor(check, { timeout: 20_000, interval: 10 });
}

/** The events a process logged (its lines without the pid). */
function eventsOf(file: string, pid: number): string[] {
  return logLines(file).flatMap((line) => (line.startsWith(`${pid} `) ? [line.slice(String(pid).length + 1)] : []));
}

interface Recorder {
  updated: string[];
  logs: string[];
  counts: { tools: number; resources: number; prompts: number };
}

function record(client: Client): Recorder {
  const r: Recorder = { updated: [], logs: [], counts: { tools: 0, resources: 0, prompts: 0 } };
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void r.updated.push(n.params.uri));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void r.logs.push(n.params.level));
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void r.counts.tools++);
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void r.counts.resources++);
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void r.counts.prompts++);
  return r;
}

let gw: McpGateway;
let subscriber: Client;
let bystander: Client;
let subscriberSeen: Recorder;
let bystanderSeen: Recorder;

beforeAll(async () => {
  gw = await startMcpGateway({ mcpServers: { a: statefulServer(logA), b: statefulServer(logB) } });
  subscriber = (await connectHttp(gw.mcpUrl, { name: "subscriber" }, (c) => void (subscriberSeen = record(c)))).client;
  bystander = (await connectHttp(gw.mcpUrl, { name: "bystander" }, (c) => void (bystanderSeen = record(c)))).client;
});

afterAll(async () => {
  await subscriber?.close();
  await bystander?.close();
  await gw?.close();
  dir.remove();
});

describe("an upstream server restart", () => {
  it("re-applies subscriptions and the logging level to the restarted server only, and updates reach the subscriber again", async () => {
    const pool = gw.gateway.pool;
    const a = pool.connection("a")!;
    const b = pool.connection("b")!;
    const pidA = a.pid!;
    const pidB = b.pid!;

    // Both servers list state://watched: the first in config order (a) owns it.
    await subscriber.subscribeResource({ uri: "state://watched" });
    await subscriber.subscribeResource({ uri: "state://other" });
    await subscriber.unsubscribeResource({ uri: "state://other" });
    await subscriber.setLoggingLevel("warning");
    expect(eventsOf(logA, pidA)).toEqual(["ready", "subscribe state://watched", "subscribe state://other", "unsubscribe state://other", "setLevel warning"]);
    expect(eventsOf(logB, pidB)).toEqual(["ready", "setLevel warning"]);

    // Updates flow before the crash.
    expect(textOf(await subscriber.callTool({ name: "a__touch", arguments: { uri: "state://watched" } }))).toBe("updated: state://watched");
    await until(() => expect(subscriberSeen.updated).toEqual(["state://watched"]));

    process.kill(pidA, "SIGKILL");
    await until(() => {
      expect(a.status).toMatchObject({ status: "ready", restarts: 1 });
      expect(a.pid).not.toBe(pidA);
    });
    expect(isAlive(pidA)).toBe(false);
    const newPidA = a.pid!;

    // The new process got the level and the live subscription (not the one dropped before the crash).
    await until(() => expect(eventsOf(logA, newPidA)).toEqual(expect.arrayContaining(["setLevel warning", "subscribe state://watched"])));

    // A resources/updated from the restarted process reaches the subscriber (and only it).
    expect(textOf(await subscriber.callTool({ name: "a__touch", arguments: { uri: "state://watched" } }))).toBe("updated: state://watched");
    await until(() => expect(subscriberSeen.updated).toEqual(["state://watched", "state://watched"]));
    // The level is in force in the new process: an info message is dropped, an error is sent.
    expect(textOf(await subscriber.callTool({ name: "a__emit_log", arguments: { level: "info" } }))).toBe("filtered: info");
    expect(textOf(await subscriber.callTool({ name: "a__emit_log", arguments: { level: "error" } }))).toBe("sent: error");
    await until(() => expect(subscriberSeen.logs).toEqual(["error"]));

    // Everything the gateway re-applied was sent before those calls, on the same connection: the
    // new process's log is complete. Exactly once each; nothing for state://other.
    expect(eventsOf(logA, newPidA).filter((e) => /^(subscribe|unsubscribe|setLevel) /.test(e)).sort()).toEqual(["setLevel warning", "subscribe state://watched"]);
    // The server that did not restart was left alone.
    expect(eventsOf(logB, pidB)).toEqual(["ready", "setLevel warning"]);
    expect(b.pid).toBe(pidB);

    // The restarted server's resources and prompts may differ: both clients were told (once);
    // its tools are the same, so no tools/list_changed (sent, if at all, before the updates above).
    for (const seen of [subscriberSeen, bystanderSeen]) {
      await until(() => expect(seen.counts).toMatchObject({ resources: 1, prompts: 1 }));
      expect(seen.counts.tools).toBe(0);
    }
    expect(bystanderSeen.updated).toEqual([]);
    // And the lists do show the new process.
    const uris = (await subscriber.listResources()).resources.map((r) => r.uri);
    expect(uris).toContain(`state://process/${newPidA}`);
    expect(uris).not.toContain(`state://process/${pidA}`);
  });

  it("does not resubscribe a URI every client unsubscribed from while the server was down", async () => {
    const a = gw.gateway.pool.connection("a")!;
    const pid = a.pid!;
    const restarts = a.status.restarts;
    process.kill(pid, "SIGKILL");
    // The crash was seen (restarts counts it at once); the restart waits out its backoff.
    await until(() => expect(a.status.restarts).toBe(restarts + 1));
    await subscriber.unsubscribeResource({ uri: "state://watched" });
    await until(() => {
      expect(a.status).toMatchObject({ status: "ready", restarts: restarts + 1 });
      expect(a.pid).not.toBe(pid);
    });
    const newPid = a.pid!;
    await until(() => expect(eventsOf(logA, newPid)).toContain("setLevel warning"));
    // A later request on the same connection: whatever was re-applied was logged before it.
    expect(textOf(await subscriber.callTool({ name: "a__touch", arguments: { uri: "state://watched" } }))).toBe("not subscribed: state://watched");
    const changes = eventsOf(logA, newPid).filter((e) => /^(un)?subscribe /.test(e));
    // Normally the unsubscribe happened while the server was down: nothing to re-apply. Had the
    // restart been faster than the unsubscribe, the subscription was re-applied, then dropped.
    expect([[], ["subscribe state://watched", "unsubscribe state://watched"]]).toContainEqual(changes);
    expect(subscriberSeen.updated).toEqual(["state://watched", "state://watched"]);
  });
});
