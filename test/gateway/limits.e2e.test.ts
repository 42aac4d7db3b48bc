/** Clear refusals: auth, size, shape, concurrency and deadline limits, all in the OpenAI error shape. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { deferred } from "../helpers/scripted-model.ts";

let upstream: ScriptedUpstream;
let silent: FakeUpstream;
let gw: RunningGateway;
const KEY = "gw-secret-key-123";

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
  silent = await startFakeUpstream(() => undefined); // accepts and never answers
  gw = await startGateway(
    {
      mcpServers: {},
      providers: {
        fake: { type: "openai", baseURL: `${upstream.url}/v1` },
      },
      gateway: {
        apiKeys: ["${GW_KEY}"],
        maxBodyBytes: 2048,
        maxMessages: 3,
        maxJsonDepth: 8,
        maxConcurrentRequests: 2,
        retries: { attempts: 1 },
      },
    },
    { env: { GW_KEY: KEY } },
  );
});

afterAll(async () => {
  await gw?.close();
  await upstream?.close();
  await silent?.close();
});

const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }) =>
  fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
const hi = { model: "fake/m", messages: [{ role: "user", content: "hi" }] };

async function expectError(response: Response, status: number, fields: Record<string, unknown>) {
  expect(response.status).toBe(status);
  const body = (await response.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body.error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(body.error).toMatchObject(fields);
}

describe("limits", () => {
  it("requires the gateway key (401 without or with a wrong one)", async () => {
    await expectError(await post(hi, {}), 401, { type: "authentication_error" });
    await expectError(await post(hi, { authorization: "Bearer nope" }), 401, { type: "authentication_error", code: "invalid_api_key" });
    upstream.script([{ text: "ok" }]);
    expect((await post(hi)).status).toBe(200);
    // The key never reaches the upstream provider.
    expect(JSON.stringify(upstream.chatRequests()[0]!.headers)).not.toContain(KEY);
  });

  it("refuses a body over maxBodyBytes with 413", async () => {
    await expectError(await post({ ...hi, messages: [{ role: "user", content: "x".repeat(5000) }] }), 413, { code: "request_too_large" });
  });

  it("refuses JSON nested too deep, naming where", async () => {
    let deep: unknown = "leaf";
    for (let i = 0; i < 20; i++) deep = { a: deep };
    await expectError(await post({ ...hi, metadata: deep }), 400, { code: "request_too_complex", param: expect.stringMatching(/^metadata(\.a)+$/) });
  });

  it("refuses more than maxMessages messages", async () => {
    const messages = Array.from({ length: 4 }, () => ({ role: "user", content: "hi" }));
    await expectError(await post({ ...hi, messages }), 400, { code: "too_many_messages", param: "messages" });
  });

});

/**
 * The deadline on a gateway of its own: on the shared one its 300 ms also bounded the other
 * tests' calls, and a busy machine's first (cold) call could outlive it.
 */
describe("requestTimeoutMs", () => {
  let deadlined: RunningGateway;
  beforeAll(async () => {
    deadlined = await startGateway({
      mcpServers: {},
      providers: { silent: { type: "openai", baseURL: `${silent.url}/v1` } },
      models: { slow: { model: "silent/m" } },
      gateway: { requestTimeoutMs: 300, retries: { attempts: 1 } },
    });
  });
  afterAll(async () => {
    await deadlined?.close();
  });

  it("ends a request that outlives its deadline with 504", async () => {
    const response = await fetch(`${deadlined.url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "slow", messages: [{ role: "user", content: "hi" }] }) });
    await expectError(response, 504, { type: "timeout_error", code: "request_timeout" });
  });
});

/**
 * Concurrency on a gateway of its own: a held stream keeps its slot until the test releases it.
 * (With a 300 ms deadline the slots were freed before a busy machine got to the refused request,
 * and on the shared gateway a slot still held failed the next test with 429.)
 */
describe("maxConcurrentRequests: one budget for /v1 and /mcp", () => {
  let capped: RunningGateway;
  beforeAll(async () => {
    capped = await startGateway(
      { mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } }, gateway: { apiKeys: ["${GW_KEY}"], maxConcurrentRequests: 2, retries: { attempts: 1 } } },
      { env: { GW_KEY: KEY } },
    );
  });
  afterAll(async () => {
    await capped?.close();
  });
  const postCapped = (body: unknown) => fetch(`${capped.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
  /** Until the gateway has let go of every slot (a closed stream is noticed asynchronously). */
  const allSlotsFree = () =>
    vi.waitFor(
      async () => {
        upstream.script([{ text: "free" }, { text: "free" }]);
        const both = await Promise.all([postCapped(hi), postCapped(hi)]);
        expect(both.map((r) => r.status)).toEqual([200, 200]);
      },
      { timeout: 10_000, interval: 20 },
    );

  it("sheds requests beyond maxConcurrentRequests with 429 and retry-after, and recovers", async () => {
    const release = deferred();
    upstream.script(() => ({ text: "held open", hang: release.promise }));
    const held = [postCapped({ ...hi, stream: true }), postCapped({ ...hi, stream: true })];
    const responses = await Promise.all(held); // both streaming, both counted while open
    const refused = await postCapped(hi);
    expect(refused.headers.get("retry-after")).toBe("1");
    await expectError(refused, 429, { type: "rate_limit_error", code: "too_many_concurrent_requests" });
    release.resolve();
    await Promise.all(responses.map((r) => r.text()));
    // And recovers: both slots serve again.
    await allSlotsFree();
  });

  it("an open MCP session stream and a /v1 stream together fill a cap of 2", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const release = deferred();
    upstream.script(() => ({ text: "held open", hang: release.promise }));
    const held = await postCapped({ ...hi, stream: true }); // slot 1
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${capped.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${KEY}` } } }));
    // The client's standalone GET stream takes slot 2 once open; wait until /v1 is refused.
    await vi.waitFor(async () => expect((await postCapped(hi)).status).toBe(429), { timeout: 5000, interval: 20 });
    release.resolve();
    await held.text();
    await client.close();
    await allSlotsFree();
  });
});

describe("oversized uploads", () => {
  it("get a clean 413 even when the body is far larger than the socket buffers", async () => {
    const huge = JSON.stringify({ ...hi, messages: [{ role: "user", content: "x".repeat(4 * 1024 * 1024) }] });
    const res = await post(huge);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: { code: "request_too_large" } });
  });

  it("count bytes of chunked bodies without a content-length", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(1024)));
        controller.enqueue(new TextEncoder().encode(JSON.stringify(hi)));
        controller.close();
      },
    });
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${KEY}` }, body, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
  });
});
