/**
 * What every gateway has: CORS for browser apps on the configured origins — checked from a page
 * on another origin in a real headless Chromium (Debian's `chromium`, driven by playwright-core)
 * — and `POST /v1/embeddings` passed through to an OpenAI-protocol provider, through the real
 * `openai` client.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync } from "node:fs";
import OpenAI from "openai";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { sendJson, startFakeUpstream, type FakeUpstream } from "../helpers/fake-upstream.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

let chat: ScriptedUpstream;
let embeddings: FakeUpstream;
let gw: RunningGateway;
let page: Server;
let pageOrigin: string;
/** Another page server: an origin the config does not allow. */
let otherPage: Server;
let otherOrigin: string;
let browser: Browser;

/** A page server: its origin is not the gateway's (another port on another loopback name). */
async function startPage(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>app</title>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install Debian's chromium package (.ci/run does), or set CHROMIUM_PATH`);
  chat = await startScriptedUpstream("openai");
  chat.script([{ text: "Hi from the model." }]);
  embeddings = await startFakeUpstream((req, res) => {
    if (req.path !== "/v1/embeddings") return sendJson(res, 404, { error: { message: "no route" } });
    if (req.body.model !== "text-embedding-3-small") return sendJson(res, 404, { error: { message: `The model '${req.body.model}' does not exist`, type: "invalid_request_error", code: "model_not_found" } });
    const inputs = Array.isArray(req.body.input) ? req.body.input : [req.body.input];
    sendJson(res, 200, {
      object: "list",
      data: inputs.map((_: unknown, index: number) => ({ object: "embedding", index, embedding: [0.25, -0.5, index] })),
      model: req.body.model,
      usage: { prompt_tokens: 3, total_tokens: 3 },
    });
  });
  // Real local pages (an intercepted page would count as public, and Chromium's local network
  // access rules, not CORS, would block its calls to loopback).
  page = await startPage();
  pageOrigin = `http://localhost:${(page.address() as AddressInfo).port}`;
  otherPage = await startPage();
  otherOrigin = `http://127.0.0.1:${(otherPage.address() as AddressInfo).port}`;
  gw = await startGateway({
    mcpServers: {},
    providers: {
      p: { type: "openai", baseURL: `${chat.url}/v1`, apiKey: "k" },
      e: { type: "openai", baseURL: `${embeddings.url}/v1`, apiKey: "k" },
      claude: { type: "anthropic", baseURL: chat.url, apiKey: "k" },
    },
    models: { embed: { model: "e/text-embedding-3-small" } },
    gateway: { cors: { allowedOrigins: [pageOrigin] }, retries: { attempts: 1 } },
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

afterAll(async () => {
  await browser?.close();
  await gw?.close();
  for (const server of [page, otherPage]) await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await chat?.close();
  await embeddings?.close();
});

/** Runs a chat request from a page on `origin`, as a browser app does (a JSON POST: preflighted). */
async function fetchFromPage(origin: string): Promise<{ ok: boolean; status?: number; requestId?: string | null; text?: string; error?: string }> {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    await tab.goto(`${origin}/`);
    return await tab.evaluate(async (url) => {
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer unused" },
          body: JSON.stringify({ model: "p/m", messages: [{ role: "user", content: "Hi" }] }),
        });
        const body = (await response.json()) as { choices: { message: { content: string } }[] };
        return { ok: true, status: response.status, requestId: response.headers.get("x-request-id"), text: body.choices[0]!.message.content };
      } catch (error) {
        return { ok: false, error: String(error) };
      }
    }, `${gw.url}/v1/chat/completions`);
  } finally {
    await context.close();
  }
}

describe("CORS", () => {
  it("lets a page on an allowed origin call the gateway (preflight answered, headers exposed)", async () => {
    const result = await fetchFromPage(pageOrigin);
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true, status: 200, text: "Hi from the model." });
    expect(result.requestId).toBeTruthy();
  });

  it("gives a page on any other origin nothing to read", async () => {
    const result = await fetchFromPage(otherOrigin);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/Failed to fetch/);
  });

  it("answers a preflight without a key, and only for the allowed origin", async () => {
    const preflight = (origin: string) =>
      fetch(`${gw.url}/v1/messages`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "x-api-key,anthropic-version,content-type" } });
    const allowed = await preflight(pageOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(pageOrigin);
    expect(allowed.headers.get("access-control-allow-headers")).toContain("x-api-key");
    const other = await preflight("http://evil.example");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("POST /v1/embeddings", () => {
  it("passes through to an OpenAI-protocol provider, routed by alias or provider/model", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const viaAlias = await client.embeddings.create({ model: "embed", input: ["one", "two"], encoding_format: "float" });
    expect(viaAlias.data.map((d) => d.embedding)).toEqual([
      [0.25, -0.5, 0],
      [0.25, -0.5, 1],
    ]);
    const direct = await client.embeddings.create({ model: "e/text-embedding-3-small", input: "one", encoding_format: "float" });
    expect(direct.data).toHaveLength(1);
    expect(embeddings.requests.at(-1)!.body).toEqual({ model: "text-embedding-3-small", input: "one", encoding_format: "float" });
  });

  it("says so for a provider whose protocol has none, and keeps the provider's own errors", async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "unused", maxRetries: 0 });
    await expect(client.embeddings.create({ model: "claude/x", input: "one" })).rejects.toMatchObject({ status: 400, code: "embeddings_not_supported" });
    await expect(client.embeddings.create({ model: "e/unknown-model", input: "one" })).rejects.toMatchObject({ status: 404 });
    await expect(client.embeddings.create({ model: "e/text-embedding-3-small", input: 42 as never })).rejects.toMatchObject({ status: 400, param: "input" });
  });
});
