/**
 * Control over the loop, end to end through every door with real clients: per-request options
 * (`mcp_gateway` in the body, `x-mcp-gateway-*` headers) that narrow and never widen,
 * `final_answer`, model capabilities, and the tool policy (deny; approval by MCP annotation,
 * refused with a result the model can act on, or run for a key that auto-approves). The MCP
 * servers are the real server-everything and server-filesystem; the provider a scripted fake.
 */
import { existsSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { npmServer, startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { tempDir } from "../helpers/mcp-servers.ts";

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let openai: OpenAI;
let auto: OpenAI;
let anthropic: Anthropic;
const dir = tempDir("loop-control-");

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  gw = await startGateway({
    mcpServers: { everything: npmServer("server-everything"), files: npmServer("server-filesystem", dir.path) },
    providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream", capabilities: { "blind-*": { tools: false, vision: false } } } },
    models: {
      agent: { model: "fake/gpt-test", mcpServers: ["everything", "files"], maxIterations: 3, toolPolicy: { approve: { names: ["everything__get-s*"] } } },
      blind: { model: "fake/blind-1" },
    },
    gateway: {
      maxIterations: 5,
      retries: { attempts: 1 },
      apiKeys: [{ key: "k-user", name: "user" }, { key: "k-auto", name: "trusted", autoApprove: true }],
      toolPolicy: { deny: ["everything__get-env"], approve: { annotations: ["destructiveHint"] } },
    },
  });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "k-user", maxRetries: 0 });
  auto = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "k-auto", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: "k-user", maxRetries: 0 });
}, 60_000);

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  dir.remove();
});

type Body = { tools?: { function: { name: string } }[]; messages: { role: string; content?: unknown }[]; tool_choice?: unknown };
const sent = (i: number) => upstream.chatRequests()[i]!.body as Body;
const offered = (i: number) => (sent(i).tools ?? []).map((t) => t.function.name);
const echo = (id: string) => ({ id, name: "everything__echo", arguments: { message: id } });
const info = (answer: unknown) => (answer as { mcp_gateway: { stop_reason: string; turns: number; final_answer?: boolean; tool_calls: { name: string; is_error: boolean }[] } }).mcp_gateway;
const user = (content: string) => [{ role: "user" as const, content }];

describe("per-request loop options", () => {
  it("/v1/chat/completions: mcp_gateway (extra_body) lowers max_iterations and narrows the tools; it never reaches the provider", async () => {
    upstream.script([{ calls: [echo("c1")] }, { calls: [echo("c2")] }, { text: "never" }]);
    const completion = await openai.chat.completions.create({ model: "agent", messages: user("echo twice") });
    expect(completion.choices[0]!.message.content).toBe("never");
    expect(offered(0).length).toBeGreaterThan(20);
    upstream.script([{ calls: [echo("c1")] }, { calls: [echo("c2")] }, { text: "never" }]);
    const narrowed = await openai.chat.completions.create({
      model: "agent",
      messages: user("echo twice"),
      // @ts-expect-error the gateway's own options, as the openai client sends extra_body
      mcp_gateway: { max_iterations: 1, tools: { allow: ["everything__echo", "everything__get-sum"] } },
    });
    expect(upstream.chatRequests()).toHaveLength(1);
    expect(offered(0).sort()).toEqual(["everything__echo", "everything__get-sum"]);
    expect(JSON.stringify(sent(0))).not.toContain("mcp_gateway");
    expect(narrowed.choices[0]!.finish_reason).toBe("length");
    expect(info(narrowed)).toMatchObject({ stop_reason: "max_iterations", turns: 1 });
  });

  it("/v1/messages: the same object in the body; final_answer gives an answer when the turns run out", async () => {
    upstream.script([{ calls: [echo("c1")] }, { calls: [echo("c2")] }, { text: "From what I found: c1 and c2 echoed." }]);
    const message = await anthropic.messages.create({
      model: "agent",
      max_tokens: 200,
      messages: user("keep echoing"),
      mcp_gateway: { max_iterations: 2, final_answer: true },
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.content.filter((b) => b.type === "text").map((b) => (b as Anthropic.TextBlock).text).join("")).toContain("From what I found: c1 and c2 echoed.");
    expect(info(message)).toMatchObject({ final_answer: true, turns: 3 });
    // The last call: no tools, and told why; every call before it has its result.
    expect(upstream.chatRequests()).toHaveLength(3);
    expect(sent(2).tools).toBeUndefined();
    expect(sent(2).tool_choice).toBeUndefined();
    expect(JSON.stringify(sent(2).messages.at(-1))).toContain("No more tools can be called in this request");
    expect(sent(2).messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });

  it("/v1/chat/completions streamed: final_answer's answer streams, and the last chunk says so", async () => {
    upstream.script([{ calls: [echo("c1")] }, { text: "Streamed final answer." }]);
    // The gateway's own options ride beside the standard fields.
    const params = { model: "agent", messages: user("echo"), stream: true, mcp_gateway: { max_iterations: 1, final_answer: true } } as OpenAI.ChatCompletionCreateParamsStreaming;
    const stream = await openai.chat.completions.create(params);
    let text = "";
    let finish: string | null = null;
    let last: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
      last = chunk;
    }
    expect(text).toBe("Streamed final answer.");
    expect(finish).toBe("stop");
    expect(info(last)).toMatchObject({ final_answer: true, turns: 2 });
    expect(sent(1).tools).toBeUndefined();
  });

  it("/v1/responses: mcp_gateway.tools.deny and mcp_servers narrow what is offered", async () => {
    upstream.script([{ text: "ok" }]);
    const response = await openai.responses.create({
      model: "agent",
      input: "hi",
      store: false,
      // @ts-expect-error the gateway's own options
      mcp_gateway: { mcp_servers: ["everything"], tools: { deny: ["everything__trigger-*", "everything__get-*"] } },
    });
    expect(response.output_text).toBe("ok");
    const names = offered(0);
    expect(names).toContain("everything__echo");
    expect(names.some((n) => n.startsWith("files__") || n.startsWith("everything__get-") || n.startsWith("everything__trigger-"))).toBe(false);
  });

  it("headers: x-mcp-gateway-max-iterations and -tools-allow work like the body's, and the narrower wins", async () => {
    upstream.script([{ calls: [echo("c1")] }, { calls: [echo("c2")] }, { text: "never" }]);
    const completion = await openai.chat.completions.create(
      // @ts-expect-error the gateway's own options
      { model: "agent", messages: user("echo"), mcp_gateway: { max_iterations: 2 } },
      { headers: { "x-mcp-gateway-max-iterations": "1", "x-mcp-gateway-tools-allow": "everything__echo" } },
    );
    expect(info(completion)).toMatchObject({ stop_reason: "max_iterations", turns: 1 });
    expect(offered(0)).toEqual(["everything__echo"]);
  });

  it("can narrow, never widen: a higher max_iterations than the alias's is a 400 in each door's shape, naming the field", async () => {
    const body = { model: "agent", mcp_gateway: { max_iterations: 4 } };
    const chat = await openai.chat.completions.create({ ...body, messages: user("hi") } as never).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("mcp_gateway.max_iterations");
    expect((chat as Error).message).toContain("at most 3");
    const messages = await anthropic.messages.create({ ...body, max_tokens: 10, messages: user("hi") } as never).catch((e: unknown) => e);
    expect(messages).toBeInstanceOf(Anthropic.BadRequestError);
    expect((messages as InstanceType<typeof Anthropic.BadRequestError>).error).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const responses = await openai.responses.create({ ...body, input: "hi" } as never).catch((e: unknown) => e);
    expect((responses as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("mcp_gateway.max_iterations");
  });

  it("bad options: a clear 400 with the JSON path (body and headers)", async () => {
    const wrongType = await openai.chat.completions.create({ model: "agent", messages: user("hi"), mcp_gateway: { max_iterations: "many" } } as never).catch((e: unknown) => e);
    expect((wrongType as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((wrongType as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("mcp_gateway.max_iterations");
    const unknown = await openai.chat.completions.create({ model: "agent", messages: user("hi"), mcp_gateway: { max_turns: 2 } } as never).catch((e: unknown) => e);
    expect((unknown as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((unknown as Error).message).toContain("max_turns");
    const header = await openai.chat.completions.create({ model: "agent", messages: user("hi") }, { headers: { "x-mcp-gateway-max-iterations": "0" } }).catch((e: unknown) => e);
    expect((header as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("x-mcp-gateway-max-iterations");
  });

  it("an option header is read whatever the case of its name on the wire (raw HTTP/1.1, as a client wrote it)", async () => {
    const answer = await rawPost(`${gw.url}/v1/chat/completions`, { authorization: "Bearer k-user", "X-MCP-Gateway-Mode": "sideways" }, JSON.stringify({ model: "agent", messages: user("hi") }));
    expect(answer.status).toBe(400);
    expect((JSON.parse(answer.body) as { error: { param: string } }).error.param).toBe("x-mcp-gateway-mode");
  });
});

/** A POST with its header names exactly as given (fetch and the SDKs lower-case them). */
function rawPost(url: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body: text }));
    });
    request.on("error", reject);
    request.end(body);
  });
}

describe("model capabilities", () => {
  it("a model without tool support gets no MCP tools, and a request with its own tools a clear 400", async () => {
    upstream.script([{ text: "plain answer" }]);
    const completion = await openai.chat.completions.create({ model: "blind", messages: user("hi") });
    expect(completion.choices[0]!.message.content).toBe("plain answer");
    expect(sent(0).tools).toBeUndefined();
    const error = await openai.chat.completions
      .create({ model: "blind", messages: user("hi"), tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: {} } } }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("tools_not_supported");
    expect((error as Error).message).toContain('The model "blind" cannot call tools');
  });

  it("images to a model without vision: a clear 400 naming where the image is", async () => {
    const image = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    const error = await openai.chat.completions
      .create({ model: "blind", messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image_url", image_url: { url: image } }] }] })
      .catch((e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("images_not_supported");
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages[0].content[1]");
  });
});

describe("/v1/models", () => {
  it("shows what the config says each model can do (the provider's pattern, the alias's own); nothing for a model it says nothing of", async () => {
    const list = await openai.models.list();
    const byId = new Map(list.data.map((m) => [m.id, m as typeof m & { capabilities?: object }]));
    expect(byId.get("blind")?.capabilities).toEqual({ tools: false, vision: false });
    expect(byId.get("agent")?.capabilities).toBeUndefined();
    const anthropicList = await anthropic.models.list();
    expect(anthropicList.data.find((m) => m.id === "blind")).toMatchObject({ type: "model", capabilities: { tools: false, vision: false } });
  });
});

describe("the tool policy", () => {
  it("deny: the tool is not offered, and a call of it anyway is refused with a result that says so", async () => {
    upstream.script([{ calls: [{ id: "c_env", name: "everything__get-env", arguments: {} }] }, { text: "done" }]);
    const completion = await openai.chat.completions.create({ model: "agent", messages: user("show the environment") });
    expect(offered(0)).not.toContain("everything__get-env");
    expect(offered(0)).toContain("everything__echo");
    expect(info(completion).tool_calls).toEqual([expect.objectContaining({ name: "everything__get-env", is_error: true })]);
    const result = sent(1).messages.find((m) => m.role === "tool")!;
    expect(String(result.content)).toContain("not allowed by the gateway's tool policy");
  });

  it("approval by annotation (destructiveHint): not run without approval, the model told what to do; run for a key that auto-approves", async () => {
    const target = join(dir.path, "note.txt");
    const write = { id: "c_write", name: "files__write_file", arguments: { path: target, content: "hello" } };
    upstream.script([{ calls: [write] }, { text: "I could not write it without approval." }]);
    const refused = await openai.chat.completions.create({ model: "agent", messages: user("write a note") });
    expect(offered(0)).toContain("files__write_file");
    expect(existsSync(target)).toBe(false);
    expect(info(refused).tool_calls).toEqual([expect.objectContaining({ name: "files__write_file", is_error: true })]);
    const told = String(sent(1).messages.find((m) => m.role === "tool")!.content);
    expect(told).toContain("a person must approve it");
    expect(told).toContain("tell the user");
    // A read-only tool of the same server needs nothing.
    upstream.script([{ calls: [write] }, { text: "Written." }]);
    const approved = await auto.chat.completions.create({ model: "agent", messages: user("write a note") });
    expect(approved.choices[0]!.message.content).toBe("Written.");
    expect(existsSync(target)).toBe(true);
    expect(info(approved).tool_calls).toEqual([expect.objectContaining({ name: "files__write_file", is_error: false })]);
  });

  it("approval by name pattern (the alias's policy over the gateway's): refused through Chat Completions without a way to ask", async () => {
    upstream.script([{ calls: [{ id: "c_sum", name: "everything__get-sum", arguments: { a: 1, b: 2 } }] }, { text: "I need approval." }]);
    const completion = await openai.chat.completions.create({ model: "agent", messages: user("add 1 and 2") });
    expect(info(completion).tool_calls).toEqual([expect.objectContaining({ name: "everything__get-sum", is_error: true })]);
    expect(String(sent(1).messages.find((m) => m.role === "tool")!.content)).toContain("a person must approve it");
  });

  it("through /v1/responses an approval is OpenAI's own round trip: mcp_approval_request, then the client's mcp_approval_response runs the call", async () => {
    const target = join(dir.path, "approved.txt");
    upstream.script([{ calls: [{ id: "c_w", name: "files__write_file", arguments: { path: target, content: "approved" } }] }, { text: "Written after approval." }]);
    const first = await openai.responses.create({ model: "agent", input: "write the file" });
    expect(first.output).toEqual([expect.objectContaining({ type: "mcp_approval_request", server_label: "files", name: "write_file" })]);
    expect(existsSync(target)).toBe(false);
    // Offered to the model all the same, with its schema.
    expect(offered(0)).toContain("files__write_file");
    const request = first.output[0] as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    const second = await openai.responses.create({ model: "agent", previous_response_id: first.id, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: true }] });
    expect(existsSync(target)).toBe(true);
    expect(second.output[0]).toMatchObject({ type: "mcp_call", server_label: "files", name: "write_file", approval_request_id: request.id });
    expect(second.output_text).toBe("Written after approval.");
    // The model saw the call with its result.
    const tool = sent(1).messages.find((m) => m.role === "tool")!;
    expect(String(tool.content)).toContain("Successfully wrote");
  });

  it("through /v1/responses a declined call is not run, and the model reads that the user declined", async () => {
    const target = join(dir.path, "declined.txt");
    upstream.script([{ calls: [{ id: "c_d", name: "files__write_file", arguments: { path: target, content: "no" } }] }, { text: "Not written." }]);
    const first = await openai.responses.create({ model: "agent", input: "write the file" });
    const request = first.output[0] as OpenAI.Responses.ResponseOutputItem.McpApprovalRequest;
    const second = await openai.responses.create({ model: "agent", previous_response_id: first.id, input: [{ type: "mcp_approval_response", approval_request_id: request.id, approve: false }] });
    expect(second.output_text).toBe("Not written.");
    expect(existsSync(target)).toBe(false);
    expect(String(sent(1).messages.find((m) => m.role === "tool")!.content)).toContain("declined");
  });
});
