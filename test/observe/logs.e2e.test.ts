/**
 * The logs: the request line stays; at `debug` a line per model turn and per tool call; at `trace`
 * what went over the wire to the provider (request and answer bodies, streamed or not), redacted:
 * the provider's key never appears, credential headers are [REDACTED].
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/core/config/index.ts";
import { createLogger } from "../../src/core/logger.ts";
import { configSecrets, createGateway, type Gateway } from "../../src/gateway/runtime.ts";
import { listen, type Listening } from "../../src/gateway/http/listen.ts";
import { npmServer } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const PROVIDER_KEY = "sk-provider-secret-0123456789";
let model: ScriptedUpstream;
let lines: Record<string, unknown>[] = [];
let raw = "";

async function start(level: string): Promise<{ gateway: Gateway; server: Listening }> {
  const config = resolveConfig({ mcpServers: { everything: npmServer("server-everything") }, providers: { p: { type: "openai", baseURL: `${model.url}/v1`, apiKey: PROVIDER_KEY } } }, {});
  const logger = createLogger({
    level,
    secrets: configSecrets(config),
    destination: {
      write(line: string) {
        raw += line;
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  const gateway = await createGateway(config, { logger });
  const server = await listen(gateway.app, "127.0.0.1", 0);
  await gateway.started;
  return { gateway, server };
}

beforeAll(async () => {
  model = await startScriptedUpstream("openai");
});

afterAll(async () => {
  await model.close();
});

/** The request's summary line: the last one it writes (a stream's, once the stream has ended). */
const isRequestLine = (line: Record<string, unknown>) => line.msg === "chat completion" || line.msg === "chat completion streamed";

/** Runs one request with an MCP tool call; returns the index of the first line written after the gateway started. */
async function run(level: string, stream: boolean): Promise<number> {
  lines = [];
  raw = "";
  const { gateway, server } = await start(level);
  const from = lines.length;
  try {
    model.script([{ calls: [{ id: "call_1", name: "everything__echo", arguments: { message: "logged" } }] }, { text: "All done." }]);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": `logs-${level}-${stream}` },
      body: JSON.stringify({ model: "p/m", stream, messages: [{ role: "user", content: "echo please" }] }),
    });
    expect(response.status).toBe(200);
    await response.text();
    // A stream's line is written once its end is handled, a moment after the client read it.
    await vi.waitFor(() => expect(lines.some(isRequestLine)).toBe(true), { timeout: 5_000, interval: 5 });
    return from;
  } finally {
    await server.close(200);
    await gateway.close();
  }
}

const withMsg = (msg: string) => lines.filter((l) => l.msg === msg);

describe("logs", () => {
  it("at info: the request line only", async () => {
    await run("info", false);
    expect(withMsg("chat completion")).toHaveLength(1);
    expect(withMsg("model turn")).toHaveLength(0);
    expect(withMsg("upstream request")).toHaveLength(0);
  });

  it("at info, without the async request context, the lines a request writes still name its id", async () => {
    lines = [];
    const { gateway, server } = await start("info");
    try {
      model.script([{ text: "Fine." }]);
      // A follow-up naming a tool call this gateway never answered: the hidden-steps store warns.
      const messages = [
        { role: "user", content: "echo please" },
        { role: "assistant", content: null, tool_calls: [{ id: "call_unknown", type: "function", function: { name: "everything__echo", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "call_unknown", content: "echoed" },
      ];
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": "logs-info-ids" },
        body: JSON.stringify({ model: "p/m", messages }),
      });
      expect(response.status).toBe(200);
      await response.text();
    } finally {
      await server.close(200);
      await gateway.close();
    }
    expect(lines.find((l) => typeof l.msg === "string" && l.msg.startsWith("no stored steps"))).toMatchObject({ requestId: "logs-info-ids", toolCallIds: ["call_unknown"] });
    expect(withMsg("chat completion")).toEqual([expect.objectContaining({ requestId: "logs-info-ids" })]);
  });

  it("at debug: a line per model turn and per tool call", async () => {
    await run("debug", false);
    const turns = withMsg("model turn");
    expect(turns.map((t) => t.turn)).toEqual([1, 2]);
    expect(turns[0]).toMatchObject({ requestId: "logs-debug-false", provider: "p", model: "m", usage: { inputTokens: 11, outputTokens: 7 }, stop: "tool_calls" });
    expect(typeof turns[0]!.ms).toBe("number");
    expect(withMsg("tool call")).toEqual([expect.objectContaining({ requestId: "logs-debug-false", turn: 1, tool: "everything__echo", server: "everything", outcome: "ok" })]);
    expect(withMsg("chat completion")).toHaveLength(1);
    expect(withMsg("upstream request")).toHaveLength(0);
  });

  for (const stream of [false, true]) {
    it(`at trace: what went over the wire to the provider, redacted (${stream ? "streamed" : "whole"})`, async () => {
      await run("trace", stream);
      const requests = withMsg("upstream request");
      const responses = withMsg("upstream response");
      expect(requests).toHaveLength(2);
      expect(responses).toHaveLength(2);
      expect(requests[0]).toMatchObject({ provider: "p", method: "POST", url: `${model.url}/v1/chat/completions` });
      expect((requests[0]!.headers as Record<string, string>).authorization).toBe("[REDACTED]");
      const sent = JSON.parse(String(requests[0]!.body)) as { messages: { content: string }[]; stream?: boolean };
      expect(sent.messages[0]!.content).toBe("echo please");
      expect(Boolean(sent.stream)).toBe(stream);
      expect(String(requests[1]!.body)).toContain("Echo: logged");
      expect(responses[0]).toMatchObject({ provider: "p", status: 200 });
      expect(String(responses[1]!.body)).toContain(stream ? "data: " : "All done.");
      if (stream) expect(String(responses[1]!.body)).toContain("[DONE]");
      expect(raw).not.toContain(PROVIDER_KEY);
    });
  }

  for (const stream of [false, true]) {
    it(`every line written for a request carries its id: loop, adapter, MCP client, wire log (${stream ? "streamed" : "whole"})`, async () => {
      const from = await run("trace", stream);
      const end = lines.findIndex(isRequestLine);
      // What an MCP server writes on its stderr is its own, not the request's (server-everything
      // writes there when it asks the gateway for roots at startup, at any moment).
      const during = lines.slice(from, end + 1).filter((l) => l.msg !== "mcp server stderr");
      // The turns, the tool call and the wire log are among them: lines of several layers.
      expect(during.map((l) => l.msg)).toEqual(expect.arrayContaining(["model turn", "tool call", "upstream request", "upstream response"]));
      for (const line of during) expect(line, JSON.stringify(line)).toMatchObject({ requestId: `logs-trace-${stream}` });
    });
  }
});
