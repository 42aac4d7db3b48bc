/**
 * Each surface is offered exactly what it can use, and the CLI says so. The gateway declares its
 * MCP clients' capabilities to the servers (server-everything lists its sampling and elicitation
 * tools only to clients that have them); /mcp clients get those tools, but a model through /v1
 * has no client to ask, so it is offered only what the server lists without them — sampling
 * included when gateway.sampling.model answers it. `tools` prints what a model gets, name for
 * name, and names the MCP-only ones; `check` counts them apart.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmServer, startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { connectHttp, everythingServer, startMcpGateway } from "../helpers/mcp-gateway-harness.ts";
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

const ELICIT = "everything__trigger-elicitation-request";
const SAMPLE = "everything__trigger-sampling-request";

function cli(command: "tools" | "check"): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, command, "--config", configPath], { cwd: root, env: { ...process.env, LOG_LEVEL: "warn" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function offeredNames(request: { body: Record<string, unknown> }): string[] {
  return (request.body.tools as { function: { name: string } }[]).map((tool) => tool.function.name).sort();
}

describe("what each surface offers", () => {
  it("tools lists exactly the tools a model gets through serve, and names those only MCP clients get", async () => {
    const listed = await cli("tools");
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { function: { name: string } }[]).map((tool) => tool.function.name).sort();
    await new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: "x", maxRetries: 0 }).chat.completions.create({ model: "p/m", messages: [{ role: "user", content: "hi" }] });
    const offered = offeredNames(upstream.chatRequests()[0]!);
    expect(names).toEqual(offered);
    // No client to answer elicitation and no gateway.sampling.model: neither tool could work for a model.
    expect(offered).not.toContain(ELICIT);
    expect(offered).not.toContain(SAMPLE);
    expect(offered).toContain("everything__echo");
    expect(listed.stderr).toMatch(/offered to MCP clients \(\/mcp, stdio\) only, not to models/);
    expect(listed.stderr).toContain(ELICIT);
    expect(listed.stderr).toContain(SAMPLE);
  });

  it("check counts the MCP-only tools apart", async () => {
    const checked = await cli("check");
    const row = checked.stdout.split("\n").find((line) => line.startsWith("everything"));
    expect(row, checked.stdout).toMatch(/ready\s+\d+ \+\d+ \/mcp/);
  });

  it("an MCP client with the capabilities gets every tool, the capability-dependent ones included", async () => {
    const { client } = await connectHttp(new URL(`${gw.url}/mcp`), { capabilities: { sampling: {}, elicitation: { form: {} } } });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining([ELICIT, SAMPLE, "everything__echo"]));
    } finally {
      await client.close();
    }
  });

  it("offers the sampling tool to models when gateway.sampling.model answers sampling, never the elicitation one", async () => {
    const sampler = await startScriptedUpstream("openai", () => ({ text: "ok" }));
    const mcpGw = await startMcpGateway({
      mcpServers: { everything: everythingServer() },
      providers: { p: { type: "openai", baseURL: `${sampler.url}/v1`, apiKey: "k" } },
      gateway: { sampling: { model: "p/m" } },
    });
    try {
      await new OpenAI({ baseURL: `${mcpGw.url}/v1`, apiKey: "x", maxRetries: 0 }).chat.completions.create({ model: "p/m", messages: [{ role: "user", content: "hi" }] });
      const offered = offeredNames(sampler.chatRequests()[0]!);
      expect(offered).toContain(SAMPLE);
      expect(offered).not.toContain(ELICIT);
    } finally {
      await mcpGw.close();
      await sampler.close();
    }
  });
});
