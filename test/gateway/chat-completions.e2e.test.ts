/**
 * End to end: the real `openai` client -> the gateway over HTTP -> a local fake provider
 * speaking the real wire protocol, with the real server-everything as the MCP tools.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { deferred } from "../helpers/scripted-model.ts";

let upstream: ScriptedUpstream;
let anthropic: ScriptedUpstream;
let gw: RunningGateway;
let client: OpenAI;

const weatherTool = {
  type: "function" as const,
  function: {
    name: "get_weather",
    description: "Weather for a city (runs on the client)",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  anthropic = await startScriptedUpstream("anthropic");
  gw = await startGateway({
    providers: {
      fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" },
      claude: { type: "anthropic", baseURL: anthropic.url, apiKey: "sk-ant-upstream" },
    },
    models: { smart: { model: "claude/claude-test", mcpServers: ["everything"] } },
    gateway: { maxIterations: 3, retries: { attempts: 1 } },
  });
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await anthropic?.close();
});

const user = (content: string) => [{ role: "user" as const, content }];
type WireMessage = { role: string; content?: unknown; tool_calls?: { id: string; function: { name: string } }[]; tool_call_id?: string };
const sentMessages = (i: number, target = upstream) => target.chatRequests()[i]!.body.messages as WireMessage[];

describe("MCP tools through /v1/chat/completions (OpenAI-protocol upstream)", () => {
  it("runs an MCP tool inside the gateway and answers (non-streaming)", async () => {
    upstream.script([{ text: "Let me echo.", calls: [{ id: "call_1", name: "everything__echo", arguments: { message: "ping" } }] }, { text: "The echo said ping." }]);
    const completion = await client.chat.completions.create({ model: "fake/gpt-test", messages: user("echo ping") });
    expect(completion.choices[0]!.message.content).toBe("Let me echo.\n\nThe echo said ping.");
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
    expect(completion.usage).toMatchObject({ prompt_tokens: 22, completion_tokens: 14, total_tokens: 36 });
    const first = upstream.chatRequests()[0]!.body;
    expect(first.model).toBe("gpt-test");
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toContain("everything__echo");
    const second = sentMessages(1);
    expect(second[1]).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", function: { name: "everything__echo" } }] });
    expect(second[2]).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(String(second[2]!.content)).toContain("Echo: ping");
  });

  it("streams: text deltas of every turn, no MCP tool_calls, usage chunk, [DONE]", async () => {
    upstream.script([{ text: "Checking.", calls: [{ id: "call_s", name: "everything__get-sum", arguments: { a: 2, b: 3 } }] }, { text: "The sum is 5." }]);
    const stream = await client.chat.completions.create({ model: "fake/gpt-test", messages: user("2+3?"), stream: true, stream_options: { include_usage: true } });
    const deltas: string[] = [];
    let finish: string | null = null;
    let usage: unknown;
    let sawToolCalls = false;
    let lastChoiceChunk: unknown;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (!choice) continue;
      lastChoiceChunk = chunk;
      if (choice.delta.content) deltas.push(choice.delta.content);
      if (choice.delta.tool_calls) sawToolCalls = true;
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    expect(deltas.join("")).toBe("Checking.\n\nThe sum is 5.");
    expect((lastChoiceChunk as unknown as { mcp_gateway?: { stop_reason: string; tool_calls: { name: string }[] } })?.mcp_gateway).toMatchObject({ stop_reason: "stop", tool_calls: [{ name: "everything__get-sum" }] });
    expect(deltas.length).toBeGreaterThan(3); // forwarded as they came, not one buffered blob
    expect(sawToolCalls).toBe(false);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ prompt_tokens: 22, completion_tokens: 14 });
    expect(String(sentMessages(1)[2]!.content)).toContain("5");
  });

  it("runs parallel MCP calls of one turn and returns every result", async () => {
    upstream.script([
      { calls: [{ id: "p1", name: "everything__echo", arguments: { message: "a" } }, { id: "p2", name: "everything__get-sum", arguments: { a: 1, b: 1 } }] },
      { text: "done" },
    ]);
    await client.chat.completions.create({ model: "fake/gpt-test", messages: user("both") });
    const toolMessages = sentMessages(1).filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.tool_call_id).sort()).toEqual(["p1", "p2"]);
  });

  it("turns an invalid, unknown or failing call into an error result the model sees", async () => {
    upstream.script([
      { calls: [{ id: "bad", name: "everything__get-sum", arguments: { a: "two" } }, { id: "ghost", name: "everything__nope", arguments: {} }] },
      { text: "sorry" },
    ]);
    const completion = await client.chat.completions.create({ model: "fake/gpt-test", messages: user("x") });
    expect(completion.choices[0]!.message.content).toBe("sorry");
    const results = Object.fromEntries(sentMessages(1).filter((m) => m.role === "tool").map((m) => [m.tool_call_id, String(m.content)]));
    expect(results.bad).toMatch(/invalid arguments for everything__get-sum: .*arguments\.a must be number/);
    expect(results.ghost).toContain('no tool named "everything__nope"');
  });

  it("stops clearly at maxIterations", async () => {
    upstream.script([{ calls: [{ id: "loop", name: "everything__echo", arguments: { message: "again" } }] }]);
    const response = await client.chat.completions.create({ model: "fake/gpt-test", messages: user("loop") }).withResponse();
    expect(response.data.choices[0]!.finish_reason).toBe("length");
    expect(response.response.headers.get("x-mcp-gateway-stop-reason")).toBe("max_iterations");
    const info = (response.data as unknown as { mcp_gateway: { stop_reason: string; turns: number; tool_calls: { name: string; is_error: boolean }[] } }).mcp_gateway;
    expect(info).toMatchObject({ stop_reason: "max_iterations", turns: 3 });
    expect(info.tool_calls.map((t) => [t.name, t.is_error])).toEqual([["everything__echo", false], ["everything__echo", false]]);
    expect(upstream.chatRequests()).toHaveLength(3);
  });

  it("x-mcp-servers: none sends no MCP tools", async () => {
    upstream.script([{ text: "plain" }]);
    await client.chat.completions.create({ model: "fake/gpt-test", messages: user("hi") }, { headers: { "x-mcp-servers": "none" } });
    const body = upstream.chatRequests()[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });
});

describe("client tools mixed with MCP tools", () => {
  it("hands back only the client's calls, then splices the hidden MCP steps into the follow-up", async () => {
    upstream.script([
      { text: "Both at once.", calls: [{ id: "mcp_1", name: "everything__echo", arguments: { message: "hidden" } }, { id: "cli_1", name: "get_weather", arguments: { city: "Oslo" } }] },
      { text: "Oslo is sunny and the echo said hidden." },
    ]);
    const first = await client.chat.completions.create({ model: "fake/gpt-test", messages: user("weather and echo"), tools: [weatherTool] });
    const message = first.choices[0]!.message;
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    expect(message.tool_calls).toEqual([{ id: "cli_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Oslo"}' } }]);
    expect(upstream.chatRequests()).toHaveLength(1); // MCP call ran, but the model was not called again

    const second = await client.chat.completions.create({
      model: "fake/gpt-test",
      tools: [weatherTool],
      messages: [...user("weather and echo"), message, { role: "tool", tool_call_id: "cli_1", content: "sunny" }],
    });
    expect(second.choices[0]!.message.content).toBe("Oslo is sunny and the echo said hidden.");
    const history = sentMessages(1);
    expect(history.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(history[1]!.tool_calls!.map((c) => c.id)).toEqual(["mcp_1", "cli_1"]);
    expect(history.filter((m) => m.role === "tool").map((m) => m.tool_call_id)).toEqual(["mcp_1", "cli_1"]);
    expect(String(history[2]!.content)).toContain("Echo: hidden");
  });

  it("streams a client tool call as standard delta.tool_calls", async () => {
    upstream.script([{ calls: [{ id: "cli_s", name: "get_weather", arguments: { city: "Rome" } }] }]);
    const stream = client.chat.completions.stream({ model: "fake/gpt-test", messages: user("weather"), tools: [weatherTool] });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toMatchObject([{ id: "cli_s", type: "function", function: { name: "get_weather", arguments: '{"city":"Rome"}' } }]);
    expect(final.choices[0]!.message.tool_calls).toHaveLength(1);
  });
});

describe("Anthropic-protocol upstream through an alias", () => {
  it("sends the MCP tools in Anthropic form and runs the tool loop", async () => {
    anthropic.script([{ text: "Summing.", calls: [{ id: "toolu_1", name: "everything__get-sum", arguments: { a: 20, b: 22 } }] }, { text: "42." }]);
    const completion = await client.chat.completions.create({ model: "smart", messages: [{ role: "system", content: "Be brief." }, ...user("20+22")] });
    expect(completion.choices[0]!.message.content).toBe("Summing.\n\n42.");
    // The model that answered (the provider's name for it), and who, not the alias asked for.
    expect(completion.model).toBe("claude-test");
    expect((completion as unknown as { mcp_gateway: unknown }).mcp_gateway).toMatchObject({ provider: "claude", model: "claude-test" });
    const [first, second] = anthropic.chatRequests().map((r) => r.body);
    expect(first.model).toBe("claude-test");
    expect(JSON.stringify(first.system)).toContain("Be brief.");
    expect(first.messages.every((m: { role: string }) => m.role !== "system")).toBe(true);
    expect(first.tools.find((t: { name: string }) => t.name === "everything__get-sum").input_schema).toMatchObject({ type: "object" });
    expect(second.messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1" }] });
  });

  it("streams from Anthropic as OpenAI chunks", async () => {
    anthropic.script([{ text: "Hello there." }]);
    const stream = await client.chat.completions.create({ model: "smart", messages: user("hi"), stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("Hello there.");
  });
});

describe("refusals and disconnects", () => {
  it("answers bad requests with 400 naming the field, unknown models with 404", async () => {
    const bad = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "fake/x", messages: [{ role: "user", content: 5 }] }) });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { type: "invalid_request_error", param: "messages[0].content" } });
    const notJson = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: "invalid_json" } });
    await expect(client.chat.completions.create({ model: "nobody/x", messages: user("hi") })).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    const header = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "x-mcp-servers": "everything,ghost" },
      body: JSON.stringify({ model: "fake/x", messages: user("hi") }),
    });
    expect(header.status).toBe(400);
    expect(await header.json()).toMatchObject({ error: { param: "x-mcp-servers", code: "unknown_mcp_server" } });
  });

  it.each([
    ["a text part without text", [{ type: "text" }], "messages[0].content[0].text", "required: expected string"],
    ["an image detail out of range", [{ type: "text", text: "?" }, { type: "image_url", image_url: { url: "https://x/y.png", detail: "ultra" } }], "messages[0].content[1].image_url.detail", '"auto"|"low"|"high"'],
    ["content of the wrong type", 5, "messages[0].content", "expected string or array, received number"],
  ])("a bad field inside a union (%s): param is its exact path", async (_name, content, param, message) => {
    const bad = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "fake/x", messages: [{ role: "user", content }] }) });
    expect(bad.status).toBe(400);
    const { error } = (await bad.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe(param);
    expect(error.message).toContain(message);
  });

  it("tool_choice and stop: a member's bad field is named, or what the union takes", async () => {
    const send = (extra: object) => fetch(`${gw.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "fake/x", messages: user("hi"), ...extra }) }).then((r) => r.json() as Promise<{ error: { param: string; message: string } }>);
    expect((await send({ tool_choice: { type: "function", function: {} } })).error.param).toBe("tool_choice.function.name");
    expect((await send({ stop: 5 })).error).toMatchObject({ param: "stop", message: expect.stringContaining("expected string or array, received number") });
    expect((await send({ tool_choice: "sometimes" })).error.message).toContain('"auto"|"none"|"required"');
  });

  it("maps an upstream error to the OpenAI shape with its status", async () => {
    upstream.script(() => {
      throw new Error("unused");
    });
    upstream.handle((_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
      res.end(JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }));
    });
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "fake/x", messages: user("hi") }) });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("7");
    expect(await response.json()).toMatchObject({ error: { type: "rate_limit_error", message: expect.stringContaining("Rate limit reached") } });
  });

  it("a client that disconnects mid-stream aborts the upstream request", async () => {
    const hold = deferred();
    const fresh = await startScriptedUpstream("openai", () => ({ text: "a long answer", hang: hold.promise }));
    const local = await startGateway({ providers: { fake: { type: "openai", baseURL: `${fresh.url}/v1` } } });
    try {
      const controller = new AbortController();
      const response = await fetch(`${local.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: "fake/x", messages: user("hi"), stream: true }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      let seen = "";
      while (!seen.includes("a lon")) seen += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      await fresh.closed(0); // the gateway closed its upstream connection
      hold.resolve();
    } finally {
      await local.close();
      await fresh.close();
    }
  });
});

describe("/v1/models with the openai client", () => {
  it("lists aliases, and retrieves an alias or any provider/model, encoded or not", async () => {
    expect((await client.models.list()).data.map((m) => m.id)).toContain("smart");
    expect(await client.models.retrieve("smart")).toMatchObject({ id: "smart", object: "model", owned_by: "claude" });
    expect(await client.models.retrieve("fake/gpt-test")).toMatchObject({ id: "fake/gpt-test", owned_by: "fake" });
    const raw = await fetch(`${gw.url}/v1/models/fake/some/nested-id`);
    expect(await raw.json()).toMatchObject({ id: "fake/some/nested-id", owned_by: "fake" });
  });

  it("refuses an unknown model with 404 model_not_found", async () => {
    for (const id of ["nope/gpt", "no-such-alias", "fake/"]) {
      const error = await client.models.retrieve(id).catch((e: unknown) => e);
      expect(error, id).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    }
  });
});

describe("heartbeat", () => {
  it("sends SSE comments while a slow MCP tool runs, then the answer", async () => {
    const fresh = await startScriptedUpstream("openai", (_req, index) =>
      index === 0
        ? { calls: [{ id: "slow_1", name: "everything__trigger-long-running-operation", arguments: { duration: 1, steps: 2 } }] }
        : { text: "done waiting" },
    );
    const local = await startGateway({ providers: { fake: { type: "openai", baseURL: `${fresh.url}/v1` } } }, { heartbeatMs: 20 });
    try {
      const response = await fetch(`${local.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "fake/x", messages: user("wait"), stream: true }) });
      const body = await response.text();
      expect(body).toContain(": keep-alive\n\n");
      expect(body.indexOf(": keep-alive")).toBeLessThan(body.indexOf("done"));
      expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true);
    } finally {
      await local.close();
      await fresh.close();
    }
  });
});
