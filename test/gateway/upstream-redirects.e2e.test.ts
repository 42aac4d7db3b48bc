/**
 * A provider behind a redirect, through the gateway, driven by the real clients: the gateway's
 * transport follows it as the SDKs' fetch did (src/core/redirects.ts), whole answers and streams,
 * on the OpenAI and the Anthropic wire; the credentials fetch keeps from another origin (the
 * authorization header) stay behind, the other headers go on. A redirect loop is the door's own
 * error.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let openaiUpstream: ScriptedUpstream;
let anthropicUpstream: ScriptedUpstream;
let front: Server;
let frontUrl = "";
const frontHits: { method: string; path: string; authorization: string | undefined }[] = [];
let gw: RunningGateway;

/**
 * The providers' old address: `/openai/*` and `/anthropic/*` moved (307) to the upstreams, on
 * another port (another origin); `/loop/*` redirects to itself.
 */
function startFront(): Promise<void> {
  front = createServer((req, res) => {
    frontHits.push({ method: req.method ?? "", path: req.url ?? "", authorization: req.headers.authorization });
    const path = req.url ?? "/";
    const [, first, ...rest] = path.split("/");
    const target = first === "openai" ? openaiUpstream.url : first === "anthropic" ? anthropicUpstream.url : undefined;
    req.resume();
    if (first === "loop") res.writeHead(307, { location: path }).end();
    else if (target) res.writeHead(first === "openai" ? 308 : 307, { location: `${target}/${rest.join("/")}` }).end("moved");
    else res.writeHead(404).end();
  });
  return new Promise((resolve) => front.listen(0, "127.0.0.1", resolve));
}

beforeAll(async () => {
  [openaiUpstream, anthropicUpstream] = await Promise.all([startScriptedUpstream("openai"), startScriptedUpstream("anthropic")]);
  await startFront();
  frontUrl = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
  gw = await startGateway({
    mcpServers: {},
    providers: {
      moved: { type: "openai", baseURL: `${frontUrl}/openai/v1`, apiKey: "sk-upstream" },
      claude: { type: "anthropic", baseURL: `${frontUrl}/anthropic`, apiKey: "sk-ant-upstream" },
      looping: { type: "openai", baseURL: `${frontUrl}/loop/v1`, apiKey: "sk-upstream" },
    },
    gateway: { retries: { attempts: 1 } },
  });
});

afterAll(async () => {
  await gw?.close();
  await new Promise<void>((resolve) => front?.close(() => resolve()));
  await Promise.all([openaiUpstream?.close(), anthropicUpstream?.close()]);
});

describe("a provider behind a redirect", () => {
  it("Chat Completions, whole and streamed: followed with the POST and its body; the authorization stays with the old origin", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    openaiUpstream.script([{ text: "Found you at the new address." }]);
    frontHits.length = 0;

    const whole = await client.chat.completions.create({ model: "moved/gpt-test", messages: [{ role: "user", content: "Where are you?" }] });
    expect(whole.choices[0]!.message.content).toBe("Found you at the new address.");

    let streamed = "";
    const stream = await client.chat.completions.create({ model: "moved/gpt-test", messages: [{ role: "user", content: "And now?" }], stream: true });
    for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? "";
    expect(streamed).toBe("Found you at the new address.");

    // The old origin got the key; the new one, as with fetch, does not.
    expect(frontHits).toEqual([
      { method: "POST", path: "/openai/v1/chat/completions", authorization: "Bearer sk-upstream" },
      { method: "POST", path: "/openai/v1/chat/completions", authorization: "Bearer sk-upstream" },
    ]);
    const sent = openaiUpstream.chatRequests();
    expect(sent.map((r) => [r.method, r.body.model, r.body.messages[0].content, r.headers.authorization])).toEqual([
      ["POST", "gpt-test", "Where are you?", undefined],
      ["POST", "gpt-test", "And now?", undefined],
    ]);
  });

  it("Messages, whole and streamed: followed with the body and the protocol's headers; the SDK's authorization stays with the old origin", async () => {
    const client = new Anthropic({ baseURL: gw.url, apiKey: "unused", maxRetries: 0 });
    anthropicUpstream.script([{ text: "Moved, still here." }]);
    frontHits.length = 0;

    const whole = await client.messages.create({ model: "claude/claude-test-1", max_tokens: 100, messages: [{ role: "user", content: "Hi" }] });
    expect(whole.content).toEqual([{ type: "text", text: "Moved, still here." }]);

    const stream = client.messages.stream({ model: "claude/claude-test-1", max_tokens: 100, messages: [{ role: "user", content: "Hi again" }] });
    const final = await stream.finalMessage();
    expect(final.content).toEqual([{ type: "text", text: "Moved, still here." }]);

    const sent = anthropicUpstream.chatRequests();
    expect(sent).toHaveLength(2);
    expect(sent.map((r) => [r.method, r.body.model, r.body.messages[0].content, r.headers.authorization])).toEqual([
      ["POST", "claude-test-1", "Hi", undefined],
      ["POST", "claude-test-1", "Hi again", undefined],
    ]);
    for (const request of sent) expect(request.headers["anthropic-version"]).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The SDK's credentials reached the old origin (as its authorization header).
    expect(frontHits.map((hit) => [hit.path, hit.authorization])).toEqual([
      ["/anthropic/v1/messages", "Bearer sk-ant-upstream"],
      ["/anthropic/v1/messages", "Bearer sk-ant-upstream"],
    ]);
  });

  it("a redirect loop: the door's error (the provider unreachable), and the gateway serves on", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    frontHits.length = 0;
    const failure = await client.chat.completions.create({ model: "looping/gpt-test", messages: [{ role: "user", content: "Hi" }] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    const error = failure as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(502);
    expect(error.error).toMatchObject({ code: "upstream_unreachable", message: "looping: could not reach the provider (redirect count exceeded)" });
    // fetch's limit: the first request and 20 redirects.
    expect(frontHits).toHaveLength(21);

    openaiUpstream.script([{ text: "Still serving." }]);
    const after = await client.chat.completions.create({ model: "moved/gpt-test", messages: [{ role: "user", content: "Hi" }] });
    expect(after.choices[0]!.message.content).toBe("Still serving.");
  });
});
