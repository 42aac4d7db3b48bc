/**
 * The providers' SDK clients load with the first provider of their protocol, not with the
 * gateway: a gateway without an Anthropic provider never loads the Anthropic SDK's client (about
 * 250 modules, 25 MB), nor one without an OpenAI-protocol provider the openai client. Checked on
 * `serve` as a user runs it, with a module hook listing what the process loaded.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, startServe, writeConfig, type ServeProcess } from "../helpers/serve-process.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

let upstream: ScriptedUpstream;
const dir = mkdtempSync(join(tmpdir(), "mcpgw-modules-"));

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai");
});
afterAll(async () => {
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `serve` with `providers`, lets `use` talk to it, and returns the node_modules files it loaded. */
async function loadedBy(name: string, providers: Record<string, unknown>, use: (gateway: ServeProcess) => Promise<void> = async () => {}): Promise<string[]> {
  const log = join(dir, `${name}.log`);
  const gateway = await startServe(writeConfig({ mcpServers: {}, providers }), ["--port", "0"], {
    env: { MODULE_LOG: log, NODE_OPTIONS: `--import ${join(root, "test", "helpers", "module-log.mjs")}` },
  });
  try {
    await use(gateway);
  } finally {
    gateway.kill();
    await gateway.exited;
  }
  return readFileSync(log, "utf8").split("\n");
}

const anthropicClient = (files: string[]) => files.some((url) => /node_modules\/@anthropic-ai\/sdk\/client\.m?js$/.test(url));
const openaiClient = (files: string[]) => files.some((url) => /node_modules\/openai\/client\.m?js$/.test(url));

describe("the providers' SDK clients", () => {
  it("are not loaded by a gateway without providers of their protocols", async () => {
    const files = await loadedBy("none", {}, async (gateway) => {
      expect((await fetch(`${gateway.url}/health`)).status).toBe(200);
    });
    // The error classes are there (the adapters map failures with them); the clients are not.
    expect(files.some((url) => url.includes("node_modules/openai/core/error"))).toBe(true);
    expect(openaiClient(files)).toBe(false);
    expect(anthropicClient(files)).toBe(false);
  });

  it("load with the first provider of their protocol, which answers as before", async () => {
    const files = await loadedBy("openai", { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-test" } }, async (gateway) => {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-mcp-servers": "none" },
        body: JSON.stringify({ model: "fake/m", messages: [{ role: "user", content: "hi" }] }),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { object: string }).object).toBe("chat.completion");
    });
    expect(openaiClient(files)).toBe(true);
    expect(anthropicClient(files)).toBe(false);
  });
});
