/**
 * What `mcp-gateway tools` lists is what a model is offered through `serve`: the same client
 * capabilities are declared to the servers (server-everything offers its sampling and elicitation
 * tools only to clients that have them), so the lists match name for name.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmServer, startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const bin = join(root, "bin", "mcp-gateway.js");

let upstream: ScriptedUpstream;
let gw: RunningGateway;
let configPath: string;

beforeAll(async () => {
  upstream = await startScriptedUpstream("openai", () => ({ text: "ok" }));
  const config = { mcpServers: { everything: npmServer("server-everything") }, providers: { p: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "k" } } };
  configPath = join(mkdtempSync(join(tmpdir(), "mcpgw-tools-")), "mcp.config.json");
  writeFileSync(configPath, JSON.stringify(config));
  gw = await startGateway(config);
});
afterAll(async () => {
  await gw?.close();
  await upstream?.close();
});

function toolsCommand(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, "tools", "--config", configPath], { cwd: root, env: { ...process.env, LOG_LEVEL: "warn" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("mcp-gateway tools", () => {
  it("lists exactly the tools a model gets through serve, the capability-dependent ones included", async () => {
    const listed = await toolsCommand();
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { function: { name: string } }[]).map((tool) => tool.function.name).sort();
    await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "x", maxRetries: 0 }).chat.completions.create({ model: "p/m", messages: [{ role: "user", content: "hi" }] });
    const offered = (upstream.chatRequests()[0]!.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name).sort();
    expect(names).toEqual(offered);
    // server-everything offers these only to a client that declares sampling / elicitation.
    expect(names).toEqual(expect.arrayContaining(["everything__trigger-sampling-request", "everything__trigger-elicitation-request"]));
  });
});
