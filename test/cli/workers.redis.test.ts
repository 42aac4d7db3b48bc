/**
 * `serve --workers 2` with the Redis store (a real redis-server): two processes share the port
 * and both answer; a mixed-tool follow-up answered by the other worker splices its hidden steps
 * from the store; a worker that dies is replaced; SIGTERM to the primary stops every worker
 * gracefully (and their MCP servers) and it exits 0.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { request as httpRequest } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive, logLines, slowServerEntry } from "../helpers/mcp-servers.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { childPidsRunning, startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";
import { parseExposition, total } from "../helpers/prometheus.ts";

let redis: RunningRedis;
let upstream: ScriptedUpstream;
let gateway: ServeProcess;
const log = join(mkdtempSync(join(tmpdir(), "mcpgw-workers-")), "starts.log");

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream("openai");
  const config = writeConfig({
    mcpServers: { slow: slowServerEntry({ log }) },
    providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
    gateway: { port: 0, store: { redis: { url: redis.url, keyPrefix: "workers-test:" } }, retries: { attempts: 1 } },
  });
  gateway = await startServe(config, ["--workers", "2"]);
  await gateway.waitForLog(/listening on http:\/\/[^"]+ with 2 workers/);
});

afterAll(async () => {
  if (gateway) {
    for (const pid of [...workerPids().flatMap((worker) => serverPids(worker)), ...workerPids()]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    gateway.kill();
  }
  await upstream?.close();
  await redis?.stop();
});

/** The primary's worker processes (the same command line; not tsx's esbuild service when run from source). */
const workerPids = () => childPidsRunning(gateway.child.pid!, "mcp-gateway.js");
/** A worker's MCP server processes. */
const serverPids = (worker: number) => childPidsRunning(worker, "slow-server.mjs");

/** One request on a connection of its own (the primary spreads connections over the workers). */
function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gateway.url}${path}`, { method: "POST", agent: false, headers: { "content-type": "application/json", connection: "close" } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** A GET on a connection of its own: its body. */
function get(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gateway.url}${path}`, { agent: false, headers: { connection: "close" } }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${path}: ${res.statusCode} ${text}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The worker ids in the gateway's request log lines so far. */
function answeringWorkers(): Set<number> {
  const ids = new Set<number>();
  for (const line of gateway.stderr().split("\n")) {
    const match = /"worker":(\d+)[^\n]*"msg":"chat completion"/.exec(line);
    if (match) ids.add(Number(match[1]));
  }
  return ids;
}

describe("serve --workers 2 with Redis", () => {
  it("runs two gateway processes on one port, each with its own MCP servers, and both answer", async () => {
    const workers = workerPids();
    expect(workers).toHaveLength(2);
    // Each worker is a whole gateway: it starts the MCP server itself (in the background), and
    // for a moment a second one, which lists the tools models may use (probeModelTools).
    await vi.waitFor(() => expect(logLines(log)).toHaveLength(4), { timeout: 20_000, interval: 50 });
    upstream.script(replies({ text: "Hi." }));
    for (let i = 0; i < 8; i++) {
      const { status, json } = await post("/v1/chat/completions", { model: "p/m", messages: [{ role: "user", content: "Hi" }] });
      expect(status).toBe(200);
      expect(json.choices[0].message.content).toBe("Hi.");
    }
    expect(answeringWorkers()).toEqual(new Set([1, 2]));
  });

  it("GET /metrics answered by either worker counts the requests of both (aggregated by the primary)", async () => {
    const requests = async () => total(parseExposition(await get("/metrics")), "mcp_gateway_requests_total", { door: "chat_completions", status: "200" });
    const before = await requests();
    upstream.script(replies({ text: "Counted." }));
    for (let i = 0; i < 6; i++) expect((await post("/v1/chat/completions", { model: "p/m", messages: [{ role: "user", content: "Hi" }] })).status).toBe(200);
    // Connections alternate between the workers: these four scrapes are answered by both.
    const scrapes = [];
    for (let i = 0; i < 4; i++) scrapes.push(await requests());
    expect(scrapes).toEqual([before + 6, before + 6, before + 6, before + 6]);
    const samples = parseExposition(await get("/metrics"));
    // Each worker runs the MCP server: two of them ready, its tool count not doubled; the store reached by both.
    expect(total(samples, "mcp_gateway_mcp_server_state", { server: "slow", state: "ready" })).toBe(2);
    expect(total(samples, "mcp_gateway_mcp_server_tools", { server: "slow" })).toBe(1);
    expect(total(samples, "mcp_gateway_store_up", { kind: "redis" })).toBe(1);
  });

  it("splices a mixed-tool follow-up answered by the other worker (the hidden steps are in Redis)", async () => {
    upstream.script(replies({ calls: [{ id: "call_m", name: "slow__ping", arguments: {} }, { id: "call_c", name: "lookup", arguments: { q: "x" } }] }, { text: "Done." }));
    const tools = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
    const question = { role: "user", content: "Go" };
    const first = await post("/v1/chat/completions", { model: "p/m", messages: [question], tools });
    const call = first.json.choices[0].message.tool_calls[0];
    expect(call.id).toBe("call_c");
    // Connections alternate between the two workers: one of two consecutive follow-ups lands on
    // the worker that did not answer the first request.
    const followUp = { model: "p/m", tools, messages: [question, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "call_c", content: "found" }] };
    for (let i = 0; i < 2; i++) {
      upstream.script(replies({ text: "Done." }));
      const second = await post("/v1/chat/completions", followUp);
      expect(second.json.choices[0].message.content).toBe("Done.");
      const messages = upstream.chatRequests()[0]!.body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
      expect(messages.find((m) => m.role === "assistant")!.tool_calls!.map((c) => c.id)).toEqual(["call_m", "call_c"]);
      expect(messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_m", "call_c"]);
    }
  });

  it("replaces a worker that dies, and keeps answering", async () => {
    const [victim] = workerPids();
    const listeningBefore = (gateway.stderr().match(/"msg":"mcp-gateway listening on http:[^"]*"/g) ?? []).length;
    process.kill(victim!, "SIGKILL");
    await gateway.waitForLog(/a worker exited unexpectedly: starting another/);
    // The new worker says where it listens, as every worker does.
    await new Promise<void>((resolve) => {
      const look = () => {
        if ((gateway.stderr().match(/"msg":"mcp-gateway listening on http:[^"]*"/g) ?? []).length > listeningBefore) {
          gateway.child.stderr.off("data", look);
          resolve();
        }
      };
      gateway.child.stderr.on("data", look);
      look();
    });
    const workers = workerPids();
    expect(workers).toHaveLength(2);
    expect(workers).not.toContain(victim);
    upstream.script(replies({ text: "Still here." }));
    for (let i = 0; i < 4; i++) expect((await post("/v1/chat/completions", { model: "p/m", messages: [{ role: "user", content: "Hi" }] })).status).toBe(200);
  });

  it("on SIGTERM stops every worker gracefully, with their MCP servers, and exits 0", async () => {
    const workers = workerPids();
    // One MCP server each, once the restarted worker's start (and its probe session) is over.
    await vi.waitFor(() => expect(workers.flatMap((pid) => serverPids(pid))).toHaveLength(2), { timeout: 20_000, interval: 50 });
    const servers = workers.flatMap((pid) => serverPids(pid));
    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    expect(gateway.stderr()).toMatch(/"worker":\d+[^\n]*"msg":"stopped"[\s\S]*"worker":\d+[^\n]*"msg":"stopped"/);
    for (const pid of [...workers, ...servers]) expect(isAlive(pid), `pid ${pid} still alive`).toBe(false);
  });
});
