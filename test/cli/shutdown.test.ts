/**
 * SIGTERM/SIGINT as a rolling restart needs it, on `mcp-gateway serve` in a child process:
 * stop accepting; idle keep-alive connections, connections that never sent a request and
 * requests whose client has gone (a cancelled stream, a cancelled MCP tool call) do not hold
 * the exit; in-flight requests finish and the process exits as soon as they have (not at the
 * 10 s deadline); and no MCP server is restarted once shutdown has begun — not even the one the
 * same signal stopped, when it reached the whole process group (Ctrl-C in a terminal, a
 * service manager's stop).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { request as httpRequest, Agent } from "node:http";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { npmServer } from "../helpers/gateway-harness.ts";
import { isAlive, logLines, slowServerEntry } from "../helpers/mcp-servers.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { deferred } from "../helpers/scripted-model.ts";
import { startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";

const running: ServeProcess[] = [];
const upstreams: ScriptedUpstream[] = [];
const releases: (() => void)[] = [];

afterEach(async () => {
  for (const release of releases.splice(0)) release();
  for (const serve of running.splice(0)) {
    // A group started detached is killed as a group (its MCP servers too).
    try {
      process.kill(-serve.child.pid!, "SIGKILL");
    } catch {
      serve.kill();
    }
  }
  for (const upstream of upstreams.splice(0)) await upstream.close();
});

async function serve(config: object, options: { detached?: boolean } = {}): Promise<ServeProcess> {
  const started = await startServe(writeConfig(config), [], options);
  running.push(started);
  return started;
}

/** A streamed chat request whose first bytes have arrived (the upstream then hangs). */
async function startedStream(url: string, signal?: AbortSignal): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    ...(signal ? { signal } : {}),
    body: JSON.stringify({ model: "fake/m", stream: true, messages: [{ role: "user", content: "hi" }] }),
  });
  const reader = response.body!.getReader();
  await reader.read();
  return reader;
}

async function readToEnd(reader: ReadableStreamDefaultReader<Uint8Array>, start = ""): Promise<string> {
  let body = start;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return body;
    body += new TextDecoder().decode(value);
  }
}

/** A keep-alive connection that served one request and is now idle. */
async function idleKeepAlive(url: string): Promise<{ agent: Agent; closed: Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let socket: Socket | undefined;
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${url}/health`, { agent }, (res) => {
      socket = res.socket;
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
    req.end();
  });
  return { agent, closed: new Promise((resolve) => socket!.once("close", () => resolve())) };
}

/** A connection that never sends a request (what a client's connection pool opens ahead of need). */
async function silentConnection(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  const socket = connect({ host: "127.0.0.1", port });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => undefined);
  return { socket, closed: new Promise((resolve) => socket.once("close", () => resolve())) };
}

describe("SIGTERM with requests whose client has gone and idle connections", () => {
  it("closes them at once and exits as soon as nothing is in flight, well before the 10 s deadline", async () => {
    const hang = deferred();
    releases.push(hang.resolve);
    const upstream = await startScriptedUpstream("openai", () => ({ text: "never finished", hang: hang.promise }));
    upstreams.push(upstream);
    const gateway = await serve({
      mcpServers: { everything: npmServer("server-everything") },
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } },
      gateway: { port: 0 },
    });
    await vi.waitFor(async () => expect((await fetch(`${gateway.url}/ready`)).status).toBe(200), { timeout: 20_000, interval: 50 });

    const keepAlive = await idleKeepAlive(gateway.url);
    const silent = await silentConnection(gateway.port);
    // A stream whose client cancelled it (the upstream still hangs).
    const cancelled = await startedStream(gateway.url);
    await cancelled.cancel();
    // An MCP tool call whose client cancelled it (notifications/cancelled): the SDK server sends
    // no answer for it, and its response stream stays open.
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const client = new Client({ name: "cancelling", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`));
    // Resolves once the gateway has taken the client's notifications/cancelled (its 202).
    const cancelDelivered = deferred<Promise<void>>();
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const sent = send(message, options);
      if ("method" in message && message.method === "notifications/cancelled") cancelDelivered.resolve(sent);
      return sent;
    };
    await client.connect(transport);
    const abort = new AbortController();
    const progressed = deferred();
    const call = client
      .callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 60, steps: 60 } }, undefined, { signal: abort.signal, onprogress: () => progressed.resolve() })
      .catch((error: unknown) => error);
    await progressed.promise;
    abort.abort();
    expect(String(await call)).toMatch(/abort/i);
    await (await cancelDelivered.promise);

    const signalled = Date.now();
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    const took = Date.now() - signalled;
    await Promise.all([keepAlive.closed, silent.closed]);
    keepAlive.agent.destroy();
    await client.close();
    // The deadline for in-flight requests is 10 s: nothing was in flight.
    expect(took, gateway.stderr()).toBeLessThan(3_000);
  });
});

describe("SIGTERM with a request in flight", () => {
  it("lets it finish, and exits right after it has (idle and silent connections do not hold it)", async () => {
    const release = deferred();
    releases.push(release.resolve);
    const upstream = await startScriptedUpstream("openai", () => ({ text: "finished after SIGTERM", hang: release.promise }));
    upstreams.push(upstream);
    const gateway = await serve({ mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } }, gateway: { port: 0 } });
    const keepAlive = await idleKeepAlive(gateway.url);
    const silent = await silentConnection(gateway.port);
    const stream = await startedStream(gateway.url);
    gateway.child.kill("SIGTERM");
    await gateway.waitForLog(/shutting down/);
    // No new connection is accepted; the idle ones go at once, while the stream is still being answered.
    await expect(silentConnection(gateway.port)).rejects.toThrow(/ECONNREFUSED/);
    await Promise.all([keepAlive.closed, silent.closed]);
    keepAlive.agent.destroy();
    release.resolve();
    const body = await readToEnd(stream);
    const finished = Date.now();
    expect(body).toContain("data: [DONE]");
    expect(body).not.toContain('"error"');
    expect(await gateway.exited).toBe(0);
    expect(Date.now() - finished, gateway.stderr()).toBeLessThan(3_000);
  });
});

describe("SIGTERM to the whole process group", () => {
  it("does not restart the MCP server the same signal stopped, even when a request in flight calls its tool", async () => {
    const release = deferred();
    releases.push(release.resolve);
    const upstream = await startScriptedUpstream("openai", (_request, index) =>
      index === 0 ? { text: "Let me check.", hang: release.promise, calls: [{ id: "call_ping", name: "slow__ping", arguments: {} }] } : { text: "Done." },
    );
    upstreams.push(upstream);
    const log = join(mkdtempSync(join(tmpdir(), "mcpgw-group-")), "starts.log");
    const gateway = await serve(
      { mcpServers: { slow: slowServerEntry({ log }) }, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } }, gateway: { port: 0 } },
      { detached: true },
    );
    await vi.waitFor(async () => expect((await fetch(`${gateway.url}/ready`)).status).toBe(200), { timeout: 20_000, interval: 50 });
    // The server, then the short second session that learns which tools models may use (closed).
    expect(logLines(log)).toHaveLength(2);
    const serverPid = Number(logLines(log)[0]!.split(" ")[1]);

    // The model's first turn is under way (it will call the server's tool once released).
    const stream = await startedStream(gateway.url);
    process.kill(-gateway.child.pid!, "SIGTERM");
    await gateway.waitForLog(/shutting down/);
    // The signal stopped the MCP server too, and the gateway noticed.
    await vi.waitFor(() => expect(isAlive(serverPid)).toBe(false), { timeout: 10_000, interval: 20 });
    await gateway.waitForLog(/"server":"slow"[^\n]*mcp server unavailable/);

    release.resolve();
    const body = await readToEnd(stream);
    expect(body, gateway.stderr()).toContain("data: [DONE]");
    expect(body).not.toContain('"error"');
    expect(await gateway.exited).toBe(0);
    // Started once (and probed once): neither the crash handling nor the tool call started it again.
    expect(logLines(log), gateway.stderr()).toHaveLength(2);
    // The tool call was answered as a failure of the stopped server, not with its result.
    const toolMessage = (upstream.chatRequests()[1]!.body.messages as { role: string; content: string }[]).find((m) => m.role === "tool")!;
    expect(toolMessage.content).toMatch(/not available/);
  });
});
