/**
 * The loop as a library, as a user gets it: the package compiled (tsc, as `npm run build` does)
 * into a package directory, imported by name from a program in another directory through the
 * package's `exports`, running the loop with a zod tool and an MCP tool (server-everything)
 * against a scripted provider on 127.0.0.1. The documented example type-checks against the
 * built declarations.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { npmServer } from "../helpers/gateway-harness.ts";
import { ROOT } from "../helpers/mcp-gateway-harness.ts";
import { startScriptedUpstream, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";

const run = promisify(execFile);
const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
let work: string;
let app: string;
let upstream: ScriptedUpstream;

const program = `
import { createAgent, defineTool, silentLogger } from "mcp-agent-gateway";
import { z } from "zod";

const add = defineTool({
  name: "add",
  description: "Adds two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
  handler: ({ a, b }, { reportProgress }) => {
    reportProgress({ progress: 1, total: 1, message: "adding" });
    return String(a + b);
  },
});
const agent = await createAgent({
  config: JSON.parse(process.env.AGENT_CONFIG),
  model: "fake/m",
  tools: [add],
  logger: silentLogger(),
  mode: process.env.AGENT_MODE,
});
const events = [];
const loop = agent.stream("add 2 and 3, then echo hi");
let step = await loop.next();
while (!step.done) {
  const e = step.value;
  if (e.type === "tool_start" || e.type === "tool_end" || e.type === "tool_progress") events.push(e.type + ":" + e.call.name);
  step = await loop.next();
}
const result = step.value;
const tools = result.tools.map((t) => ({ name: t.call.name, isError: t.result.isError, text: t.result.content.map((c) => c.text).join("") }));
await agent.close();
const plan = result.plan?.steps.map((s) => s.title + ":" + s.status);
console.log(JSON.stringify({ text: result.text, stopReason: result.stopReason, turns: result.turns, tools, events, messages: result.messages.length, toolNames: agent.toolNames().length, plan }));
`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mcp-agent-lib-"));
  const pkg = join(work, "pkg");
  mkdirSync(pkg);
  // The build as `npm run build` makes it, into the package directory the program imports.
  await run(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", join(pkg, "dist")], { cwd: ROOT });
  cpSync(join(ROOT, "package.json"), join(pkg, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"));
  app = join(work, "app");
  mkdirSync(join(app, "node_modules"), { recursive: true });
  symlinkSync(pkg, join(app, "node_modules", "mcp-agent-gateway"));
  symlinkSync(join(ROOT, "node_modules", "zod"), join(app, "node_modules", "zod"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(app, "main.mjs"), program);
  upstream = await startScriptedUpstream("openai");
}, 600_000);

afterAll(async () => {
  await upstream?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("createAgent from the built package", () => {
  it("runs the loop with a zod tool and an MCP tool", async () => {
    upstream.script([
      {
        calls: [
          { id: "call_add", name: "add", arguments: { a: 2, b: 3 } },
          { id: "call_echo", name: "everything__echo", arguments: { message: "hi" } },
        ],
      },
      { text: "2 + 3 = 5, and the echo said hi" },
    ]);
    const config = {
      mcpServers: { everything: npmServer("server-everything") },
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
    };
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: app, env: { ...process.env, AGENT_CONFIG: JSON.stringify(config) } });
    const out = JSON.parse(stdout);
    expect(out.stopReason).toBe("stop");
    expect(out.text).toBe("2 + 3 = 5, and the echo said hi");
    expect(out.turns).toBe(2);
    expect(out.tools).toEqual([
      { name: "add", isError: false, text: "5" },
      { name: "everything__echo", isError: false, text: "Echo: hi" },
    ]);
    expect(out.events).toEqual(expect.arrayContaining(["tool_start:add", "tool_progress:add", "tool_end:add", "tool_start:everything__echo", "tool_end:everything__echo"]));
    // system-less prompt, the assistant's calls, the results, the answer
    expect(out.messages).toBe(4);
    const [first, second] = upstream.chatRequests();
    // The zod schema reached the provider as JSON Schema, beside the MCP server's tools.
    const addTool = first!.body.tools.find((t: { function: { name: string } }) => t.function.name === "add");
    expect(addTool.function.parameters).toMatchObject({ type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] });
    expect(out.toolNames).toBe(first!.body.tools.length);
    const results = second!.body.messages.filter((m: { role: string }) => m.role === "tool");
    expect(results.map((m: { tool_call_id: string; content: string }) => [m.tool_call_id, m.content])).toEqual([
      ["call_add", "5"],
      ["call_echo", "Echo: hi"],
    ]);
  }, 60_000);

  it("gives the model an error result for arguments its zod schema refuses, and goes on", async () => {
    upstream.script([{ calls: [{ id: "call_bad", name: "add", arguments: { a: "two", b: 3 } }] }, { text: "sorry" }]);
    const config = { mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } } };
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: app, env: { ...process.env, AGENT_CONFIG: JSON.stringify(config) } });
    const out = JSON.parse(stdout);
    expect(out.tools).toEqual([{ name: "add", isError: true, text: expect.stringContaining("invalid arguments for add: a:") }]);
    expect(out.text).toBe("sorry");
  }, 60_000);

  it("runs plan mode: a step with the zod tool, then the answer", async () => {
    upstream.script([
      { text: JSON.stringify({ steps: [{ title: "Add", instruction: "add 2 and 3" }] }) },
      { calls: [{ id: "call_add", name: "add", arguments: { a: 2, b: 3 } }] },
      { text: "5" },
      { text: "The sum is 5." },
    ]);
    const config = { mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } } };
    const { stdout } = await run(process.execPath, ["main.mjs"], { cwd: app, env: { ...process.env, AGENT_CONFIG: JSON.stringify(config), AGENT_MODE: "plan" } });
    const out = JSON.parse(stdout);
    expect(out.plan).toEqual(["Add:done"]);
    expect(out.text).toBe("The sum is 5.");
    expect(out.tools).toEqual([{ name: "add", isError: false, text: "5" }]);
    expect(upstream.chatRequests()[0]!.body.response_format.json_schema.name).toBe("plan");
  }, 60_000);

  it("types the documented example against the built declarations", async () => {
    const example = join(app, "example.ts");
    cpSync(join(ROOT, "docs", "examples", "embedded-agent.ts"), example);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: ["node"], typeRoots: [join(ROOT, "node_modules", "@types")] },
        files: ["example.ts"],
      }),
    );
    // Exits non-zero (run rejects, with tsc's diagnostics) on any type error.
    const { stdout } = await run(process.execPath, [tsc, "-p", app], { cwd: app });
    expect(stdout).toBe("");
  }, 180_000);
});
