/**
 * Process and connection hygiene: a client that goes away mid-request cancels the MCP call in
 * flight (the server receives notifications/cancelled), and secrets never reach the logs.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { faultServerEntry, logLines, tempDir } from "../helpers/mcp-servers.ts";
import { createLogger } from "../../src/core/logger.ts";

let upstream: ScriptedUpstream | undefined;
let gw: RunningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  await upstream?.close();
  gw = undefined;
  upstream = undefined;
});

describe("client disconnects", () => {
  it.each([true, false])("cancel the pending MCP call upstream (stream: %s)", async (stream) => {
    const dir = tempDir("mcpgw-cancel-");
    const log = join(dir.path, "fault.log");
    upstream = await startScriptedUpstream("openai", () => ({ calls: [{ id: "slow_1", name: "fault__slow", arguments: {} }] }));
    gw = await startGateway({ mcpServers: { fault: faultServerEntry({ log }) }, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } } });
    const controller = new AbortController();
    const request = fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "fake/m", messages: [{ role: "user", content: "go" }], stream }),
      signal: controller.signal,
    }).then(async (r) => r.text());
    await vi.waitFor(() => expect(logLines(log).some((l) => l.startsWith("slow-started"))).toBe(true), { timeout: 10_000, interval: 20 });
    controller.abort();
    await expect(request).rejects.toThrow();
    await vi.waitFor(() => expect(logLines(log).some((l) => l.startsWith("cancelled"))).toBe(true), { timeout: 5_000, interval: 20 });
    dir.remove();
  });
});

describe("logs", () => {
  it("redact configured secrets, auth headers and api keys wherever they appear", () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger({ secrets: ["sk-live-SECRET-123456"], destination: sink as unknown as pino.DestinationStream, level: "info" });
    logger.info({ headers: { authorization: "Bearer abc", "x-api-key": "xyz" }, apiKey: "sk-1" }, "request");
    logger.error({ err: "upstream said: Incorrect API key provided: sk-live-SECRET-123456" }, "failed");
    const text = lines.join("");
    expect(text).not.toContain("sk-live-SECRET-123456");
    expect(text).not.toContain("Bearer abc");
    expect(text).not.toContain("xyz");
    expect(text).not.toContain("sk-1");
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(4);
  });
});
