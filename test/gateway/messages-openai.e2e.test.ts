/**
 * The Messages door in front of OpenAI-protocol providers, driven by the real `@anthropic-ai/sdk`
 * client: the strict fakes of GLM (zhipu preset) and DeepSeek refuse what those providers
 * refuse. MCP tools only, client tools only, both in one turn and the follow-up, thinking on
 * (reasoning comes back as signed thinking blocks and goes back to the provider), tool search
 * emulated, server tools left out with a warning, errors in Anthropic's shape.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { FINAL_ANSWER, TIME_ARGS, WEATHER_ARGS } from "../helpers/strict-fakes/conversation.ts";
import { DEEPSEEK_REASONING } from "../helpers/strict-fakes/deepseek.ts";
import { FAMILIES, startStrictFake, type StrictFake } from "../helpers/strict-fakes/index.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const tools: Anthropic.Tool[] = [
  { name: "get_weather", description: "Current weather", input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "get_time", description: "Local time", input_schema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } },
];
const results: Record<string, string> = { get_weather: "18°C, sunny", get_time: "14:05" };
const question: Anthropic.MessageParam = { role: "user", content: "What is the weather and the time in Paris?" };

let fake: StrictFake | undefined;
let scripted: ScriptedUpstream | undefined;
let gateways: RunningGateway[] = [];
afterEach(async () => {
  for (const gw of gateways) await gw.close();
  gateways = [];
  await fake?.close();
  await scripted?.close();
  fake = undefined;
  scripted = undefined;
});

async function gatewayFor(provider: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Anthropic> {
  const gw = await startGateway({ providers: { p: provider }, gateway: { retries: { attempts: 1 } }, ...extra });
  gateways.push(gw);
  return new Anthropic({ baseURL: gw.url, apiKey: "unused", maxRetries: 0 });
}

async function strictGateway(preset: string): Promise<Anthropic> {
  fake = await startStrictFake(FAMILIES[preset]!());
  return gatewayFor({ type: "openai", baseURL: fake.url, apiKey: "k", quirks: preset });
}

const noMcp = { headers: { "x-mcp-servers": "none" } };

async function firstTurn(client: Anthropic, stream: boolean): Promise<Anthropic.Message> {
  const params = { model: "p/model-x", max_tokens: 1024, tools, messages: [question], thinking: { type: "enabled" as const, budget_tokens: 2048 } };
  return stream ? client.messages.stream(params, noMcp).finalMessage() : client.messages.create(params, noMcp);
}

function followUp(first: Anthropic.Message): Anthropic.MessageParam[] {
  const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
  return [
    question,
    { role: "assistant", content: first.content as Anthropic.ContentBlockParam[] },
    { role: "user", content: uses.map((use) => ({ type: "tool_result" as const, tool_use_id: use.id, content: results[use.name]! })) },
  ];
}

describe.each(["zhipu", "deepseek"])("client tools through the %s preset", (preset) => {
  it.each([false, true])("a parallel round trip with thinking on (stream: %s)", async (stream) => {
    const client = await strictGateway(preset);
    const first = await firstTurn(client, stream);
    expect(first.stop_reason).toBe("tool_use");
    const uses = first.content.filter((b): b is Anthropic.ToolUseBlock => b.type === "tool_use");
    expect(uses.map((u) => [u.name, u.input])).toEqual([
      ["get_weather", WEATHER_ARGS],
      ["get_time", TIME_ARGS],
    ]);
    const second = await client.messages.create({ model: "p/model-x", max_tokens: 1024, tools, messages: followUp(first) }, noMcp);
    expect(fake!.rejections).toEqual([]);
    expect(second.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text).join("")).toBe(FINAL_ANSWER);
    expect(second.stop_reason).toBe("end_turn");
    const sent = fake!.requests.at(-1)!.body;
    // Nothing of Anthropic's protocol reaches an OpenAI-protocol provider.
    expect(Object.keys(sent)).not.toContain("thinking");
    expect(fake!.requests.at(-1)!.headers["anthropic-version"]).toBeUndefined();
    if (preset === "zhipu") expect(fake!.requests[0]!.body.thinking).toEqual({ type: "enabled" });
    if (preset === "deepseek") {
      // DeepSeek's reasoning came to the client as a signed thinking block, and went back.
      expect(first.content[0]).toMatchObject({ type: "thinking", thinking: DEEPSEEK_REASONING });
      expect(sent.messages.find((m: { role: string }) => m.role === "assistant").reasoning_content).toBe(DEEPSEEK_REASONING);
    }
  });
});

describe("reasoning round trip without any gateway state", () => {
  it("DeepSeek's reasoning rides in the thinking block: a fresh gateway (no stored steps) still sends it back", async () => {
    fake = await startStrictFake(FAMILIES["deepseek"]!());
    const provider = { type: "openai", baseURL: fake.url, apiKey: "k", quirks: "deepseek" };
    const first = await firstTurn(await gatewayFor(provider), false);
    const other = await gatewayFor(provider);
    const second = await other.messages.create({ model: "p/model-x", max_tokens: 1024, tools, messages: followUp(first) }, noMcp);
    expect(fake.rejections).toEqual([]);
    expect(second.stop_reason).toBe("end_turn");
    expect(fake.requests.at(-1)!.body.messages.find((m: { role: string }) => m.role === "assistant").reasoning_content).toBe(DEEPSEEK_REASONING);
  });
});

describe("MCP tools through an OpenAI-protocol provider", () => {
  it("runs MCP tools only, and answers (GLM)", async () => {
    const client = await strictGateway("zhipu");
    const message = await client.messages.create({ model: "p/glm-4.6", max_tokens: 1024, messages: [question] }, { headers: { "x-mcp-servers": "everything" } });
    expect(message.stop_reason).toBe("end_turn");
    expect(fake!.rejections).toEqual([]);
    // The fake called the first two offered tools (the gateway's), then answered after their results.
    expect(fake!.requests).toHaveLength(2);
    expect(fake!.requests[1]!.body.messages.filter((m: { role: string }) => m.role === "tool")).toHaveLength(2);
    expect((message as unknown as { mcp_gateway: { tool_calls: unknown[] } }).mcp_gateway.tool_calls).toHaveLength(2);
  });

  it("hands the client's call back beside an MCP call in one turn, and splices the hidden steps on the follow-up", async () => {
    scripted = await startScriptedUpstream("openai");
    scripted.script(
      replies(
        { calls: [{ id: "call_m", name: "everything__echo", arguments: { message: "hi" } }, { id: "call_c", name: "get_weather", arguments: WEATHER_ARGS }] },
        { text: "Done." },
      ),
    );
    const client = await gatewayFor({ type: "openai", baseURL: `${scripted.url}/v1`, apiKey: "k" });
    const first = await client.messages.create({ model: "p/m", max_tokens: 100, tools, messages: [question] });
    expect(first.content).toEqual([{ type: "tool_use", id: "call_c", name: "get_weather", input: WEATHER_ARGS }]);
    const second = await client.messages.create({ model: "p/m", max_tokens: 100, tools, messages: followUp(first) });
    expect(second.content).toEqual([{ type: "text", text: "Done." }]);
    const sent = scripted.chatRequests()[1]!.body.messages;
    expect(sent.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(sent[1].tool_calls.map((c: { id: string }) => c.id)).toEqual(["call_m", "call_c"]);
  });
});

describe("tool search, server tools and what the provider cannot take", () => {
  const deferred = { name: "mcp__echo__echo", description: "Echo", input_schema: { type: "object" as const, properties: {} }, defer_loading: true } as Anthropic.Tool;
  const search = { name: "ToolSearch", description: "Finds tools", input_schema: { type: "object" as const, properties: { query: { type: "string" } } } } as Anthropic.Tool;

  it("offers a deferred tool only once a tool_reference to it came back", async () => {
    scripted = await startScriptedUpstream("openai");
    scripted.script([{ text: "ok" }]);
    const client = await gatewayFor({ type: "openai", baseURL: `${scripted.url}/v1`, apiKey: "k" });
    await client.messages.create({ model: "p/m", max_tokens: 100, tools: [search, deferred], messages: [question] }, noMcp);
    expect(scripted.chatRequests()[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["ToolSearch"]);
    await client.messages.create(
      {
        model: "p/m",
        max_tokens: 100,
        tools: [search, deferred],
        messages: [
          question,
          { role: "assistant", content: [{ type: "tool_use", id: "toolu_s", name: "ToolSearch", input: { query: "select:mcp__echo__echo" } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_s", content: [{ type: "tool_reference", tool_name: "mcp__echo__echo" } as never] }, { type: "text", text: "Tool loaded." }] },
        ],
      },
      noMcp,
    );
    const second = scripted.chatRequests()[1]!.body;
    expect(second.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["ToolSearch", "mcp__echo__echo"]);
    expect(second.messages[2]).toMatchObject({ role: "tool", tool_call_id: "toolu_s" });
    expect(JSON.stringify(second.messages[2].content)).toContain("mcp__echo__echo");
  });

  it("leaves server tools out with a warning header, and refuses a request that forces one", async () => {
    scripted = await startScriptedUpstream("openai");
    scripted.script([{ text: "ok" }]);
    const client = await gatewayFor({ type: "openai", baseURL: `${scripted.url}/v1`, apiKey: "k" });
    const webSearch = { type: "web_search_20250305", name: "web_search" } as Anthropic.WebSearchTool20250305;
    const { response } = await client.messages.create({ model: "p/m", max_tokens: 100, tools: [webSearch, tools[0]!], messages: [question] }, noMcp).withResponse();
    expect(response.headers.get("x-mcp-gateway-warning")).toContain('server tool "web_search" left out');
    expect(scripted.chatRequests()[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(["get_weather"]);
    const forced = client.messages.create({ model: "p/m", max_tokens: 100, tools: [webSearch], tool_choice: { type: "tool", name: "web_search" }, messages: [question] }, noMcp);
    await expect(forced).rejects.toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error" } } });
    await expect(forced).rejects.toThrow(/web_search/);
  });
});

describe("failures in Anthropic's shape", () => {
  it("an upstream 429 keeps its status and retry-after, as a rate_limit_error", async () => {
    scripted = await startScriptedUpstream("openai");
    scripted.handle((_req, res) => {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
      res.end(JSON.stringify({ error: { message: "Rate limit reached", type: "rate_limit_error" } }));
    });
    const client = await gatewayFor({ type: "openai", baseURL: `${scripted.url}/v1`, apiKey: "k" });
    const error = await client.messages.create({ model: "p/m", max_tokens: 100, messages: [question] }, noMcp).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const failure = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(failure.headers?.get("retry-after")).toBe("7");
    expect(failure.error).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect(failure.headers?.get("request-id")).toBeTruthy();
  });

  it("a bad field is a 400 naming its path", async () => {
    scripted = await startScriptedUpstream("openai");
    const client = await gatewayFor({ type: "openai", baseURL: `${scripted.url}/v1`, apiKey: "k" });
    const bad = client.messages.create({ model: "p/m", max_tokens: 100, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png" } }] }] } as never);
    await expect(bad).rejects.toMatchObject({ status: 400, error: { error: { type: "invalid_request_error" } } });
    await expect(bad).rejects.toThrow(/messages\[0\]\.content\[0\]\.source\.data/);
    const missing = client.messages.create({ model: "p/m", messages: [question] } as never);
    await expect(missing).rejects.toThrow(/max_tokens/);
    expect(scripted.chatRequests()).toHaveLength(0);
  });

  it("a client that disconnects mid-stream aborts the upstream request", async () => {
    scripted = await startScriptedUpstream("openai");
    let release!: () => void;
    scripted.script([{ text: "a long answer", hang: new Promise<void>((resolve) => (release = resolve)) }]);
    const client = await gatewayFor({ type: "openai", baseURL: `${scripted.url}/v1`, apiKey: "k" });
    const stream = client.messages.stream({ model: "p/m", max_tokens: 100, messages: [question] }, noMcp);
    const ended = stream.done().then(
      () => "finished",
      (error: unknown) => (error instanceof Anthropic.APIUserAbortError ? "aborted" : String(error)),
    );
    await new Promise<void>((resolve) => stream.on("text", () => resolve()));
    stream.abort();
    expect(await ended).toBe("aborted");
    await scripted.closed(0);
    release();
    expect(scripted.chatRequests()).toHaveLength(1);
  });
});
