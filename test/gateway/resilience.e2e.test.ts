/**
 * Retries and fallbacks end to end: flaky fake providers behind the gateway, the real openai
 * client in front. Delays are configured tiny; nothing here waits on wall-clock time.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { deferred } from "../helpers/scripted-model.ts";

let primary: FakeUpstream;
let backup: ScriptedUpstream;
let gw: RunningGateway;
let client: OpenAI;
/** What the primary does with the n-th chat request (0-based). */
let behaviour: (index: number, res: import("node:http").ServerResponse) => void;
let primaryCount = 0;

const okBody = (text: string) => ({
  id: "chatcmpl-p",
  object: "chat.completion",
  created: 1,
  model: "primary-model",
  choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
const failWith = (res: import("node:http").ServerResponse, status: number, headers: Record<string, string> = {}) =>
  sendJson(res, status, { error: { message: `upstream says ${status}`, type: "server_error" } }, headers);

beforeAll(async () => {
  primary = await startFakeUpstream((req, res) => {
    if (!req.path.endsWith("/chat/completions")) return failWith(res, 404);
    behaviour(primaryCount++, res);
  });
  backup = await startScriptedUpstream("anthropic");
  gw = await startGateway(
    {
      providers: {
        primary: { type: "openai", baseURL: `${primary.url}/v1` },
        backup: { type: "anthropic", baseURL: backup.url },
        nokey: { type: "openai", apiKey: "${UNSET_KEY}" },
      },
      models: {
        resilient: { model: "primary/p-model", fallbacks: ["backup/b-model"] },
        keyless: { model: "nokey/m", fallbacks: ["backup/b-model"] },
      },
      gateway: { retries: { attempts: 3, initialDelayMs: 1, maxDelayMs: 2, budgetMs: 1000 } },
    },
    { env: {} },
  );
  client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
});

afterAll(async () => {
  await gw?.close();
  await primary?.close();
  await backup?.close();
});

beforeEach(() => {
  primaryCount = 0;
  backup.script([{ text: "from backup" }]);
});

const ask = (model = "resilient", extra: Partial<OpenAI.ChatCompletionCreateParamsNonStreaming> = {}) =>
  client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], ...extra });

describe("retries", () => {
  it("retries 5xx and succeeds on the same provider", async () => {
    behaviour = (i, res) => (i < 2 ? failWith(res, 503) : sendJson(res, 200, okBody("third time lucky")));
    const answer = await ask();
    expect(answer.choices[0]!.message.content).toBe("third time lucky");
    expect(primaryCount).toBe(3);
    expect(backup.chatRequests()).toHaveLength(0);
  });

  it("honours retry-after on 429", async () => {
    behaviour = (i, res) => (i === 0 ? failWith(res, 429, { "retry-after-ms": "3" }) : sendJson(res, 200, okBody("after waiting")));
    expect((await ask()).choices[0]!.message.content).toBe("after waiting");
    expect(primaryCount).toBe(2);
  });

  it("does not retry or fall back on a 400: the request itself is wrong", async () => {
    behaviour = (_i, res) => failWith(res, 400);
    await expect(ask()).rejects.toMatchObject({ status: 400 });
    expect(primaryCount).toBe(1);
    expect(backup.chatRequests()).toHaveLength(0);
  });
});

describe("fallbacks", () => {
  it("falls back to the next provider (another protocol) after the retries are spent", async () => {
    behaviour = (_i, res) => failWith(res, 500);
    const answer = await ask();
    expect(answer.choices[0]!.message.content).toBe("from backup");
    // The model that answered after the fallback, and its provider: not the alias asked for.
    expect(answer.model).toBe("b-model");
    expect((answer as unknown as { mcp_gateway: { provider: string } }).mcp_gateway.provider).toBe("backup");
    expect(primaryCount).toBe(3);
    expect(backup.chatRequests()[0]!.body.model).toBe("b-model");
  });

  it("falls back in the middle of an agent loop, converting the history for the fallback's protocol", async () => {
    const toolCall = {
      ...okBody(""),
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: null, tool_calls: [{ id: "call_abc", type: "function", function: { name: "everything__echo", arguments: '{"message":"x"}' } }] },
          finish_reason: "tool_calls",
        },
      ],
    };
    behaviour = (i, res) => (i === 0 ? sendJson(res, 200, toolCall) : failWith(res, 502));
    backup.script([{ text: "finished by backup" }]);
    const answer = await ask();
    expect(answer.choices[0]!.message.content).toBe("finished by backup");
    const history = backup.chatRequests()[0]!.body.messages;
    expect(history[1]).toMatchObject({ role: "assistant", content: [{ type: "tool_use", id: "call_abc", name: "everything__echo", input: { message: "x" } }] });
    expect(history[2]).toMatchObject({ role: "user", content: [{ type: "tool_result", tool_use_id: "call_abc" }] });
    const tools = backup.chatRequests()[0]!.body.tools as { name: string; input_schema: unknown }[];
    expect(tools.find((t) => t.name === "everything__echo")?.input_schema).toMatchObject({ type: "object" });
  });

  it("skips a provider whose key is not set", async () => {
    const answer = await ask("keyless");
    expect(answer.choices[0]!.message.content).toBe("from backup");
  });

  it("streams: retries before the first byte, then answers normally", async () => {
    behaviour = (i, res) => {
      if (i === 0) return failWith(res, 503);
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "streamed" }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
      res.end("data: [DONE]\n\n");
    };
    const stream = await client.chat.completions.create({ model: "resilient", messages: [{ role: "user", content: "hi" }], stream: true });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    expect(text).toBe("streamed");
    expect(primaryCount).toBe(2);
  });

  it("streams: a stream cut off after output ends with an error chunk and [DONE], never a hang", async () => {
    const cut = deferred();
    behaviour = (_i, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: "partial" }, finish_reason: null }] })}\n\n`);
      void cut.promise.then(() => res.socket?.destroy());
    };
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "resilient", messages: [{ role: "user", content: "hi" }], stream: true }),
    });
    const reader = response.body!.getReader();
    let body = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      body += new TextDecoder().decode(value);
      if (body.includes("partial")) cut.resolve(); // the client has the output: now cut the upstream
    }
    expect(response.status).toBe(200);
    expect(body).toContain('"content":"partial"');
    const frames = body.split("\n\n").filter((f) => f.startsWith("data: "));
    expect(frames.at(-1)).toBe("data: [DONE]");
    expect(JSON.parse(frames.at(-2)!.slice(6))).toMatchObject({ error: { type: expect.any(String), message: expect.any(String) } });
    expect(primaryCount).toBe(1); // output had been sent: no retry, no fallback
    expect(backup.chatRequests()).toHaveLength(0);
  });
});
