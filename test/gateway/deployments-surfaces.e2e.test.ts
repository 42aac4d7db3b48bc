/**
 * An alias's deployments beyond the chat doors: the MCP `chat` tool, sampling answered by the
 * gateway's model and `POST /v1/embeddings` go through the doors' router, so they are spread by
 * weight and a failing deployment is cooled down for them too. A real gateway on 127.0.0.1,
 * scripted OpenAI-protocol upstreams, server-everything (over stdio) asking for sampling, real MCP
 * clients on /mcp. Nothing waits on wall-clock time.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { connectHttp, everythingServer, startMcpGateway, textOf, type McpGateway } from "../helpers/mcp-gateway-harness.ts";
import { replies, startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let east: ScriptedUpstream;
let west: ScriptedUpstream;
let flaky: ScriptedUpstream;
let steady: ScriptedUpstream;
let embedA: FakeUpstream;
let embedB: FakeUpstream;
let embedFlaky: FakeUpstream;
let embedSteady: FakeUpstream;
let embedPicky: FakeUpstream;
let embedSpare: FakeUpstream;
let embedHung: FakeUpstream;
let embedAfterHung: FakeUpstream;
/** Resolves when the hung deployment has a request, and when that request's connection closed. */
let hungArrived: Promise<void>;
let hungClosed: Promise<void>;
let gw: McpGateway;

/** An OpenAI-protocol embeddings endpoint that answers one vector per input. */
function embeddings(): Promise<FakeUpstream> {
  return startFakeUpstream((req, res) => {
    if (req.path !== "/v1/embeddings") return sendJson(res, 404, { error: { message: `no route ${req.path}` } });
    sendJson(res, 200, { object: "list", data: [{ object: "embedding", index: 0, embedding: [0.5, -0.5] }], model: req.body.model, usage: { prompt_tokens: 2, total_tokens: 2 } });
  });
}

const overloaded = (name: string) => startFakeUpstream((_req, res) => sendJson(res, 503, { error: { message: `${name} is overloaded`, type: "server_error" } }));

beforeAll(async () => {
  [east, west, flaky, steady] = await Promise.all([
    startScriptedUpstream("openai", replies({ text: "from east" })),
    startScriptedUpstream("openai", replies({ text: "from west" })),
    startScriptedUpstream("openai", replies({ text: "from flaky" })),
    startScriptedUpstream("openai", replies({ text: "sampled by steady" })),
  ]);
  flaky.handle((_req, res) => sendJson(res, 503, { error: { message: "flaky is overloaded", type: "server_error" } }));
  [embedA, embedB, embedFlaky, embedSteady, embedSpare] = await Promise.all([embeddings(), embeddings(), overloaded("embed-flaky"), embeddings(), embeddings()]);
  // OpenAI's answer to an input over the model's limit: the request's fault, wherever it goes.
  embedPicky = await startFakeUpstream((_req, res) =>
    sendJson(res, 400, { error: { message: "This model's maximum context length is 8192 tokens, however you requested 9000 tokens.", type: "invalid_request_error", param: null, code: null } }),
  );
  // A deployment that takes the request and never answers: only the gateway can end the call.
  let arrived!: () => void;
  let closed!: () => void;
  hungArrived = new Promise((resolve) => (arrived = resolve));
  hungClosed = new Promise((resolve) => (closed = resolve));
  embedHung = await startFakeUpstream((_req, res) => {
    res.once("close", closed);
    arrived();
  });
  embedAfterHung = await embeddings();
  const provider = (upstream: { url: string }) => ({ type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" });
  gw = await startMcpGateway({
    mcpServers: { everything: everythingServer() },
    providers: {
      east: provider(east),
      west: provider(west),
      flaky: provider(flaky),
      steady: provider(steady),
      embedA: provider(embedA),
      embedB: provider(embedB),
      embedFlaky: provider(embedFlaky),
      embedSteady: provider(embedSteady),
      embedPicky: provider(embedPicky),
      embedSpare: provider(embedSpare),
      embedHung: provider(embedHung),
      embedAfterHung: provider(embedAfterHung),
    },
    models: {
      gpt: { deployments: [{ model: "east/gpt-4.1", weight: 3 }, { model: "west/gpt-4.1", weight: 1 }] },
      // The flaky one comes first: the round-robin's first pick on a tie.
      sturdy: { deployments: [{ model: "flaky/m" }, { model: "steady/m" }], cooldownMs: 600_000 },
      vectors: { deployments: [{ model: "embedA/text-embedding-3-small" }, { model: "embedB/text-embedding-3-small" }] },
      "sturdy-vectors": { deployments: [{ model: "embedFlaky/e" }, { model: "embedSteady/e" }], cooldownMs: 600_000 },
      "picky-vectors": { deployments: [{ model: "embedPicky/e" }, { model: "embedSpare/e" }], cooldownMs: 600_000 },
      "hung-vectors": { deployments: [{ model: "embedHung/e" }, { model: "embedAfterHung/e" }] },
    },
    gateway: { sampling: { model: "sturdy" }, retries: { attempts: 2, initialDelayMs: 0, maxDelayMs: 1, budgetMs: 1000 } },
  });
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([east, west, flaky, steady, embedA, embedB, embedFlaky, embedSteady, embedPicky, embedSpare, embedHung, embedAfterHung].map((u) => u?.close()));
});

async function embed(model: string): Promise<{ status: number; body: { model?: string; error?: { message: string } } }> {
  const response = await fetch(`${gw.url}/v1/embeddings`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ model, input: "hello" }) });
  return { status: response.status, body: (await response.json()) as { model?: string; error?: { message: string } } };
}

describe("deployments for the MCP chat tool and sampling", () => {
  it("the chat tool's model calls are spread by weight: 8 calls, 6 to east and 2 to west", async () => {
    const { client, transport } = await connectHttp(gw.mcpUrl);
    const answers: string[] = [];
    for (let i = 0; i < 8; i++) answers.push(textOf(await client.callTool({ name: "chat", arguments: { model: "gpt", prompt: `question ${i}` } })));
    expect(east.chatRequests()).toHaveLength(6);
    expect(west.chatRequests()).toHaveLength(2);
    expect(answers.filter((text) => text.includes("from east"))).toHaveLength(6);
    expect(answers.filter((text) => text.includes("from west"))).toHaveLength(2);
    await transport.terminateSession();
    await client.close();
  });

  it("sampling answered by the gateway cools a failing deployment down: its retries once, then never again", async () => {
    const { client, transport } = await connectHttp(gw.mcpUrl, { capabilities: {} });
    for (let i = 0; i < 3; i++) {
      const result = await client.callTool({ name: "everything__trigger-sampling-request", arguments: { prompt: `hi ${i}`, maxTokens: 20 } });
      expect(textOf(result)).toContain("sampled by steady");
    }
    // The first sampling spent its two attempts on the flaky deployment; the next two skipped it.
    expect(flaky.requests).toHaveLength(2);
    expect(steady.chatRequests()).toHaveLength(3);
    await transport.terminateSession();
    await client.close();
  });
});

describe("deployments for /v1/embeddings", () => {
  it("spreads an alias's embeddings over its deployments by weight", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => embed("vectors")));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(embedA.requests).toHaveLength(3);
    expect(embedB.requests).toHaveLength(3);
    expect(embedA.requests.every((r) => r.body.model === "text-embedding-3-small")).toBe(true);
  });

  it("retries a failing deployment, cools it down and answers from the other", async () => {
    const first = await embed("sturdy-vectors");
    expect(first.status).toBe(200);
    expect(embedFlaky.requests).toHaveLength(2);
    for (let i = 0; i < 4; i++) expect((await embed("sturdy-vectors")).status).toBe(200);
    expect(embedFlaky.requests).toHaveLength(2);
    expect(embedSteady.requests).toHaveLength(5);
  });

  it("answers a bad request (400) with the provider's message: not retried, not tried elsewhere, nothing cooled down", async () => {
    const refused = await embed("picky-vectors");
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toContain("maximum context length is 8192 tokens");
    // Asked once, and the other deployment not at all.
    expect(embedPicky.requests).toHaveLength(1);
    expect(embedSpare.requests).toHaveLength(0);
    // The spread's next pick is the other one; the one after is the picky one again: not cooled down.
    expect((await embed("picky-vectors")).status).toBe(200);
    expect((await embed("picky-vectors")).status).toBe(400);
    expect(embedPicky.requests).toHaveLength(2);
    expect(embedSpare.requests).toHaveLength(1);
  });

  it("a client that leaves ends the call upstream, with no retry and no other deployment tried", async () => {
    const client = new AbortController();
    const asked = fetch(`${gw.url}/v1/embeddings`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "embed-left" },
      body: JSON.stringify({ model: "hung-vectors", input: "hello" }),
      signal: client.signal,
    }).catch((error: unknown) => error);
    await hungArrived;
    client.abort();
    expect(await asked).toBeInstanceOf(Error);
    // The gateway hangs up on the deployment it was waiting for ...
    await hungClosed;
    // ... and once the request is over (the web view has it), nothing else was asked of anyone.
    await vi.waitFor(async () => {
      const record = (await (await fetch(`${gw.url}/ui/api/requests/embed-left`)).json()) as { state?: string };
      expect(record.state).toMatch(/^(done|failed)$/);
    }, { timeout: 5_000, interval: 10 });
    expect(embedHung.requests).toHaveLength(1);
    expect(embedAfterHung.requests).toHaveLength(0);
  });
});
