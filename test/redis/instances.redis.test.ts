/**
 * Three gateway processes (`node bin/mcp-gateway.js serve`, each on its own port) sharing one
 * Redis (a real redis-server), behind a round-robin load balancer the test starts on 127.0.0.1
 * (test/helpers/round-robin-proxy.ts): consecutive requests land on different instances.
 *
 * - Mixed-tool follow-ups through each door (/v1/chat/completions, /v1/messages, /v1/responses)
 *   land on another instance than the turn before and splice its hidden steps.
 * - A legacy /mcp session (the MCP SDK client, through the load balancer) hops instances.
 * - Redis is stopped and started mid-run: plain requests go on, what needs it is a 503, and the
 *   instances recover without a restart.
 * - One instance gets SIGTERM in the middle of steady load: the load sees zero failed requests
 *   (the load balancer sends the requests it can no longer take to the others), and it exits 0.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { slowServerEntry } from "../helpers/mcp-servers.ts";
import { startRedis, type RunningRedis } from "../helpers/redis-server.ts";
import { startRoundRobinProxy, type RoundRobinProxy } from "../helpers/round-robin-proxy.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";

let redis: RunningRedis;
let upstream: ScriptedUpstream;
let instances: ServeProcess[] = [];
let proxy: RoundRobinProxy;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream("openai");
  const config = writeConfig({
    mcpServers: { slow: slowServerEntry() },
    providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } },
    gateway: { port: 0, store: { redis: { url: redis.url, keyPrefix: "instances-test:" } }, retries: { attempts: 1 } },
  });
  instances = await Promise.all([0, 1, 2].map(() => startServe(config)));
  // Every instance has its MCP server and Redis before the tests start.
  await Promise.all(instances.map((instance) => instance.waitForLog(/"server":"slow"[^\n]*"msg":"mcp server ready"/)));
  await Promise.all(instances.map((instance) => instance.waitForLog(/"msg":"state store connected"/)));
  proxy = await startRoundRobinProxy(instances.map((instance) => instance.port));
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all(
    instances.map(async (instance) => {
      if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
      instance.child.kill("SIGTERM");
      await instance.exited;
    }),
  );
  await upstream?.close();
  await redis?.stop();
});

const mixed = () => replies({ calls: [{ id: "call_m", name: "slow__ping", arguments: {} }, { id: "call_c", name: "lookup", arguments: { q: "x" } }] }, { text: "Done." });

/** The follow-up's upstream request carries the hidden MCP step: both calls, both results. */
function expectSpliced(): void {
  const messages = upstream.chatRequests()[1]!.body.messages as { role: string; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  expect(messages.find((m) => m.role === "assistant")!.tool_calls!.map((c) => c.id)).toEqual(["call_m", "call_c"]);
  expect(messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["call_m", "call_c"]);
}

/** The instances that answered the last `n` POSTs to `path`, in order. */
function answeredBy(path: string, n: number): number[] {
  return proxy.served.filter((s) => s.method === "POST" && s.path.startsWith(path)).slice(-n).map((s) => s.backend);
}

const openai = () => new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: "x", maxRetries: 0 });

describe("three instances behind a round-robin load balancer", () => {
  beforeEach(() => upstream.script(mixed()));

  it("Chat Completions: the follow-up lands on another instance and splices the hidden steps", async () => {
    const tools: OpenAI.ChatCompletionTool[] = [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } } } }];
    const question: OpenAI.ChatCompletionMessageParam = { role: "user", content: "Go" };
    const first = await openai().chat.completions.create({ model: "p/m", messages: [question], tools });
    const call = first.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    const second = await openai().chat.completions.create({
      model: "p/m",
      tools,
      messages: [question, { role: "assistant", content: null, tool_calls: [{ id: call.id, type: "function", function: call.function }] }, { role: "tool", tool_call_id: call.id, content: "found" }],
    });
    expect(second.choices[0]!.message.content).toBe("Done.");
    const [one, two] = answeredBy("/v1/chat/completions", 2);
    expect(one).not.toBe(two);
    expectSpliced();
  });

  it("Messages: likewise, streamed", async () => {
    const client = new Anthropic({ baseURL: proxy.url, apiKey: "x", maxRetries: 0 });
    const tools: Anthropic.Tool[] = [{ name: "lookup", input_schema: { type: "object", properties: { q: { type: "string" } } } }];
    const first = await client.messages.stream({ model: "p/m", max_tokens: 100, tools, messages: [{ role: "user", content: "Go" }] }).finalMessage();
    const use = first.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    const second = await client.messages
      .stream({
        model: "p/m",
        max_tokens: 100,
        tools,
        messages: [
          { role: "user", content: "Go" },
          { role: "assistant", content: first.content as Anthropic.ContentBlockParam[] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "found" }] },
        ],
      })
      .finalMessage();
    expect(second.content).toEqual([expect.objectContaining({ type: "text", text: "Done." })]);
    const [one, two] = answeredBy("/v1/messages", 2);
    expect(one).not.toBe(two);
    expectSpliced();
  });

  it("Responses: previous_response_id continues on another instance, and the history resent splices too", async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: "lookup", parameters: { type: "object", properties: { q: { type: "string" } } }, strict: false }];
    const first = await openai().responses.create({ model: "p/m", input: "Go", tools });
    const second = await openai().responses.create({ model: "p/m", previous_response_id: first.id, tools, input: [{ type: "function_call_output", call_id: "call_c", output: "found" }] });
    expect(second.output_text).toBe("Done.");
    const [one, two] = answeredBy("/v1/responses", 2);
    expect(one).not.toBe(two);
    expectSpliced();

    // store: false, the history resent as items (as Codex does): the hidden steps come from Redis.
    upstream.script(mixed());
    const unstored = await openai().responses.create({ model: "p/m", input: "Go", tools, store: false });
    const call = unstored.output.find((item) => item.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall;
    await openai().responses.create({
      model: "p/m",
      tools,
      store: false,
      input: [{ role: "user", content: "Go" }, { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: "function_call_output", call_id: call.call_id, output: "found" }],
    });
    const [three, four] = answeredBy("/v1/responses", 2);
    expect(three).not.toBe(four);
    expectSpliced();
  });

  it("a legacy /mcp session hops instances (the MCP SDK client through the load balancer)", async () => {
    const client = new Client({ name: "roaming-client", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`));
    await client.connect(transport);
    const session = transport.sessionId!;
    for (let i = 0; i < 3; i++) {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("slow__ping");
      expect(JSON.stringify((await client.callTool({ name: "slow__ping", arguments: {} })).content)).toContain("pong");
    }
    await client.setLoggingLevel("debug");
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const hops = new Set(proxy.served.filter((s) => s.sessionId === session && s.method === "POST").map((s) => s.backend));
    expect(hops.size).toBe(3);
    // Each instance that had not seen the session re-created it from its record.
    const resumed = instances.filter((instance) => new RegExp(`"session":"${session}"[^\n]*"msg":"mcp session resumed on this instance`).test(instance.stderr()));
    expect(resumed.length).toBe(2);
    await transport.terminateSession();
    await client.close();
  });
});

describe("Redis stopped and started mid-run", () => {
  it("plain requests go on, stored state is a 503, and every instance recovers without a restart", async () => {
    upstream.script(() => ({ text: "Plain." }));
    const stored = await openai().responses.create({ model: "p/m", input: "Hi" });
    await redis.stop();
    try {
      // Through every instance in turn.
      for (let i = 0; i < instances.length; i++) {
        const plain = await openai().chat.completions.create({ model: "p/m", messages: [{ role: "user", content: "Hi" }] });
        expect(plain.choices[0]!.message.content).toBe("Plain.");
      }
      for (const instance of instances) {
        const health = (await (await fetch(`${instance.url}/health`)).json()) as { status: string; store: { status: string } };
        expect(health).toMatchObject({ status: "degraded", store: { status: "down" } });
      }
      const refused = await openai()
        .responses.create({ model: "p/m", previous_response_id: stored.id, input: "More" })
        .catch((error: unknown) => error);
      expect(refused).toMatchObject({ status: 503 });
    } finally {
      await redis.start();
    }
    // Watched as an operator watches /health: each instance reconnects by itself.
    for (const instance of instances) {
      await expect
        .poll(async () => ((await (await fetch(`${instance.url}/health`)).json()) as { store: { status: string } }).store.status, { timeout: 15_000, interval: 50 })
        .toBe("ok");
    }
    const again = await openai().responses.create({ model: "p/m", input: "Hi again" });
    expect((await openai().responses.retrieve(again.id)).id).toBe(again.id);
    const [created, retrieved] = proxy.served.filter((s) => s.path.startsWith("/v1/responses")).slice(-2).map((s) => s.backend);
    expect(created).not.toBe(retrieved);
  });
});

describe("SIGTERM to one instance under steady load", () => {
  it("loses no request: the ones in flight finish, the others go to the other instances", async () => {
    // Streamed answers take a moment upstream, so some are in flight on the instance when it stops.
    upstream.script(() => ({ text: "Fine, thanks.", hang: new Promise((resolve) => setTimeout(resolve, 15)) }));
    const [victim] = instances;
    const results = { ok: 0, failed: [] as string[] };
    let stop = false;
    const waiters: { count: number; resolve: () => void }[] = [];
    const succeeded = () => {
      results.ok++;
      for (const waiter of [...waiters]) {
        if (results.ok < waiter.count) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    };
    const reached = (count: number) => new Promise<void>((resolve) => (results.ok >= count ? resolve() : waiters.push({ count, resolve })));
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: "x", maxRetries: 0 });
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          if ((n + i) % 2 === 0) {
            const answer = await client.chat.completions.create({ model: "p/m", messages: [{ role: "user", content: "How are you?" }] });
            if (answer.choices[0]!.message.content !== "Fine, thanks.") throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
          } else {
            let text = "";
            const stream = await client.chat.completions.create({ model: "p/m", stream: true, messages: [{ role: "user", content: "How are you?" }] });
            for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
            if (text !== "Fine, thanks.") throw new Error(`unexpected streamed answer ${JSON.stringify(text)}`);
          }
          succeeded();
        } catch (error) {
          results.failed.push(String(error));
        }
      }
    };
    const load = Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map(worker));
    await reached(60);
    const servedBefore = proxy.served.filter((s) => s.backend === victim!.port).length;
    victim!.child.kill("SIGTERM");
    expect(await victim!.exited).toBe(0);
    const okAtExit = results.ok;
    await reached(okAtExit + 60);
    stop = true;
    await load;
    expect(results.failed).toEqual([]);
    expect(servedBefore).toBeGreaterThan(0);
    // It stopped as soon as its requests in flight were answered.
    expect(victim!.stderr()).toMatch(/"msg":"shutting down: finishing in-flight requests"[\s\S]*"msg":"stopped"/);
    // The others took everything after it.
    const tail = proxy.served.slice(-60);
    expect(tail.every((s) => s.backend !== victim!.port)).toBe(true);
  });
});
