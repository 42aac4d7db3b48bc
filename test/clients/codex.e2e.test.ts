/**
 * End to end with the REAL Codex CLI (`@openai/codex@0.169.0`, the native musl binary behind its
 * Node launcher), headless (`codex exec`): Codex -> the gateway's Responses door
 * (`POST /v1/responses`, streamed) -> a scripted fake speaking OpenAI Chat Completions, with the
 * real server-everything as the gateway's MCP tools.
 *
 * Codex is set up as it was for the recordings in test/fixtures/clients/codex (see NOTES.md
 * there): a fresh HOME and CODEX_HOME, a clean environment, `$CODEX_HOME/config.toml` with a
 * custom `model_provider` (`wire_api = "responses"`, `base_url` = the gateway, `env_key`),
 * `approval_policy = "never"`, analytics and otel off, stdin at /dev/null.
 *
 * Sandbox: `sandbox_mode = "workspace-write"`, as recorded. Codex then runs `exec_command` through
 * its bundled bubblewrap (there is no `bwrap` on PATH: it says so on stderr and uses its own) and
 * `apply_patch` in-process; both work in this environment (Linux, root, user namespaces
 * available), so `danger-full-access` is not needed. Where bubblewrap cannot create its
 * namespaces, the shell call's output would be a sandbox error instead of the file, and the
 * first scenario fails on the missing secret word (its message shows Codex's stderr).
 *
 * The fake decides from what it RECEIVED, never from the request's index: after a tool result it
 * answers with what it found in the tool messages, so the final answer holds the secret word
 * only if the shell command's output really reached the model.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type Script, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import type { RecordedRequest } from "../helpers/fake-upstream.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const CODEX = join(root, "node_modules", ".bin", "codex");
const CHILD_TIMEOUT_MS = 90_000;

type ChatMessage = {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  reasoning_content?: string;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
};
type ChatTool = { type: string; function: { name: string; description?: string; parameters?: { type?: string; properties?: Record<string, { type?: string }>; required?: string[] } } };

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "string" ? part : String((part as { text?: unknown }).text ?? ""))).join("");
  return "";
}

const messagesOf = (request: RecordedRequest): ChatMessage[] => (request.body?.messages ?? []) as ChatMessage[];
const toolsOf = (request: RecordedRequest): ChatTool[] => (request.body?.tools ?? []) as ChatTool[];
const toolNamesOf = (request: RecordedRequest): string[] => toolsOf(request).map((tool) => tool.function.name);
const afterToolResult = (request: RecordedRequest) => messagesOf(request).at(-1)?.role === "tool";
const toolTexts = (request: RecordedRequest): string =>
  messagesOf(request)
    .filter((m) => m.role === "tool")
    .map((m) => textOf(m.content))
    .join("\n");

/* ---------------- running Codex ---------------- */

interface CodexResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Processes still carrying this run's marker right after Codex exited (should be none). */
  leftovers: number[];
}

/** Codex children the test started, to end in afterAll if they are still there. */
const children = new Set<ChildProcess>();
/** Every run's marks, to find its processes. */
const markers = new Set<RunMarks>();

function killGroup(proc: ChildProcess): void {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

interface RunMarks {
  /** The value of `MCPGW_CODEX_E2E` in Codex's environment (inherited by what it starts, unless it clears the environment). */
  marker: string;
  /** The run's HOME and working directory: a process running from or naming them is the run's (Codex's MCP servers get a cleared environment). */
  dirs: string[];
}

/** Processes of a run: Codex, its sandbox, the commands and MCP servers it started. */
function processesOf(marks: RunMarks): number[] {
  const needle = `MCPGW_CODEX_E2E=${marks.marker}`;
  const inRun = (path: string) => marks.dirs.some((dir) => path === dir || path.startsWith(`${dir}/`));
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1").split("\0");
      const argv = readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0");
      let cwd = "";
      try {
        cwd = readlinkSync(`/proc/${entry}/cwd`);
      } catch {
        // a zombie, or gone
      }
      if (environ.includes(needle) || argv.some((arg) => marks.dirs.some((dir) => arg.includes(dir))) || inRun(cwd)) found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

function killMarked(): void {
  for (const marks of markers) {
    for (const pid of processesOf(marks)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

afterAll(() => {
  for (const proc of children) killGroup(proc);
  children.clear();
  killMarked();
});

interface CodexSetup {
  gatewayUrl: string;
  /** TOML appended to config.toml; `<HOME>` stands for the run's HOME. */
  extraConfig?: string;
  /** Files to put in HOME. */
  homeFiles?: Record<string, string>;
  /** The config's default model (`model = …`); `-m` in `args` overrides it. */
  configModel: string;
  args: string[];
  /** Files to put in the working directory. */
  files: Record<string, string>;
}

interface CodexRun {
  result: CodexResult;
  home: string;
  workdir: string;
  cleanup(): void;
}

function configToml(gatewayUrl: string, model: string): string {
  return `model = "${model}"
model_provider = "gateway"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.gateway]
name = "mcp-gateway under test"
base_url = "${gatewayUrl}/v1"
env_key = "GATEWAY_API_KEY"
wire_api = "responses"
# A failure should show up as a failure, not as Codex's reconnect loop.
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[otel]
exporter = "none"
`;
}

async function runCodex(setup: CodexSetup): Promise<CodexRun> {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "codex-e2e-home-")));
  const workdir = realpathSync(mkdtempSync(join(tmpdir(), "codex-e2e-work-")));
  const cleanup = () => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workdir, { recursive: true, force: true });
  };
  const codexHome = join(home, ".codex");
  const scratch = join(home, "tmp");
  mkdirSync(codexHome);
  mkdirSync(scratch);
  writeFileSync(join(codexHome, "config.toml"), configToml(setup.gatewayUrl, setup.configModel) + (setup.extraConfig ?? "").replaceAll("<HOME>", home));
  for (const [name, content] of Object.entries(setup.homeFiles ?? {})) writeFileSync(join(home, name), content);
  for (const [name, content] of Object.entries(setup.files)) writeFileSync(join(workdir, name), content);

  const marker = randomUUID();
  const marks: RunMarks = { marker, dirs: [home, workdir] };
  markers.add(marks);
  // `env -i`: only what Codex needs. The launcher is a node script, so node's directory leads PATH.
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    CODEX_HOME: codexHome,
    TMPDIR: scratch,
    GATEWAY_API_KEY: "sk-codex-e2e-dummy",
    MCPGW_CODEX_E2E: marker,
  };
  const result = await new Promise<CodexResult>((resolve, reject) => {
    // stdin is /dev/null (`</dev/null`); its own process group, so a timeout ends Codex and everything it started.
    const proc = spawn(CODEX, ["exec", "--skip-git-repo-check", ...setup.args], { cwd: workdir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.add(proc);
    let stdout = "";
    let stderr = "";
    proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[test] Codex did not finish within ${CHILD_TIMEOUT_MS} ms: killed\n`;
      killGroup(proc);
    }, CHILD_TIMEOUT_MS);
    proc.on("error", (error) => {
      clearTimeout(timer);
      children.delete(proc);
      reject(error);
    });
    proc.on("close", (code, signal) => {
      clearTimeout(timer);
      children.delete(proc);
      resolve({ code, signal, stdout, stderr, leftovers: processesOf(marks) });
    });
  });
  return { result, home, workdir, cleanup };
}

const diagnostics = (result: CodexResult) => `exit ${result.code} (${result.signal})\n--- stderr ---\n${result.stderr.slice(-5000)}\n--- stdout ---\n${result.stdout.slice(-3000)}`;

/* ---------------- scenario 1: one shell call ---------------- */

describe("Codex (real CLI, headless) through the Responses door to an OpenAI-chat model: one shell call (exec_command)", () => {
  const SECRET = `PAPAYA-${randomUUID().slice(0, 8)}`;
  const SHELL_CALL = "call_shell_1";
  const FINAL = `The file says the secret word is ${SECRET}.`;

  const script: Script = (request) => {
    if (afterToolResult(request)) {
      const found = /secret word is ([\w-]+)/.exec(toolTexts(request))?.[1];
      return { text: found ? `The file says the secret word is ${found}.` : "I could not see the file's content." };
    }
    if (toolNamesOf(request).includes("exec_command")) return { calls: [{ id: SHELL_CALL, name: "exec_command", arguments: { cmd: "cat hello.txt" } }] };
    return { text: "ok" };
  };

  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  let run: CodexRun | undefined;

  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai", script);
    gw = await startGateway({
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
      // glm-4.6 is a model Codex does not know (it falls back to default metadata: no apply_patch).
      models: { "glm-4.6": { model: "fake/some-model" } },
      gateway: { retries: { attempts: 1 } },
    });
    run = await runCodex({
      gatewayUrl: gw.url,
      configModel: "glm-4.6",
      args: ["Print the contents of hello.txt"],
      files: { "hello.txt": `Hello from the Codex e2e test. The secret word is ${SECRET}.\n` },
    });
  }, CHILD_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    run?.cleanup();
  });

  it("exits 0 and prints the final answer, which holds the secret word from the shell's output", () => {
    const result = run!.result;
    expect(result.code, diagnostics(result)).toBe(0);
    expect(result.stdout.trim(), diagnostics(result)).toBe(FINAL);
    // Codex ran the command itself (its transcript on stderr), in its sandbox.
    expect(result.stderr).toContain("sandbox: workspace-write");
    expect(result.stderr).toMatch(/\/bin\/bash -lc 'cat hello\.txt' in .*\n succeeded/);
  });

  it("the fake was offered Codex's tools and the gateway's, and received the shell's output as the tool result", () => {
    const chats = upstream.chatRequests();
    expect(chats.map((request) => (afterToolResult(request) ? "after tool" : "first")), diagnostics(run!.result)).toEqual(["first", "after tool"]);
    for (const request of chats) expect(request.body.model).toBe("some-model");

    const [first, final] = chats as [RecordedRequest, RecordedRequest];
    const names = toolNamesOf(first);
    expect(names).toEqual(expect.arrayContaining(["exec_command", "write_stdin", "multi_agent_v1__spawn_agent", "everything__echo"]));
    expect(names).not.toContain("web_search");
    const exec = toolsOf(first).find((tool) => tool.function.name === "exec_command")!;
    expect(exec.function.parameters?.required).toEqual(["cmd"]);
    // Codex's base instructions (its first developer message) arrive as the first system message.
    expect(messagesOf(first)[0]!.role).toBe("system");
    expect(textOf(messagesOf(first)[0]!.content)).toContain("Codex CLI");
    expect(textOf(messagesOf(first).at(-1)!.content)).toBe("Print the contents of hello.txt");

    const messages = messagesOf(final);
    const assistant = messages.at(-2)!;
    expect(assistant.tool_calls?.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([[SHELL_CALL, "exec_command", { cmd: "cat hello.txt" }]]);
    const result = messages.at(-1)!;
    expect(result).toMatchObject({ role: "tool", tool_call_id: SHELL_CALL });
    expect(textOf(result.content)).toContain(`The secret word is ${SECRET}.`);
  });

  it("left no process behind", () => {
    expect(run!.result.leftovers).toEqual([]);
  });
});

/* ---------------- scenario 2: apply_patch, a freeform tool ---------------- */

describe("Codex with -m gpt-5.5: apply_patch (a custom, freeform tool) as a function and back, reasoning kept across turns", () => {
  const PATCH_CALL = "call_patch_1";
  const NOTE = `written through the gateway ${randomUUID().slice(0, 8)}`;
  const PATCH = `*** Begin Patch\n*** Add File: note.txt\n+${NOTE}\n*** End Patch\n`;
  const REASONING = "The user wants note.txt: one apply_patch call adds it.";

  const script: Script = (request) => {
    if (afterToolResult(request)) {
      const said = /Success\. Updated the following files:\s*\n(.*)/.exec(toolTexts(request))?.[1];
      return { text: said ? `apply_patch reported: ${said.trim()}` : "apply_patch did not report success." };
    }
    if (toolNamesOf(request).includes("apply_patch")) return { reasoning: REASONING, calls: [{ id: PATCH_CALL, name: "apply_patch", arguments: { input: PATCH } }] };
    return { text: "ok" };
  };

  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  let run: CodexRun | undefined;

  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai", script);
    gw = await startGateway({
      // DeepSeek's preset: its reasoning must go back on tool turns, so the gateway has to restore
      // it from the reasoning item Codex echoes (store is false: the gateway keeps nothing).
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream", quirks: "deepseek" } },
      models: { "gpt-*": { model: "fake/deepseek-reasoner" } },
      gateway: { retries: { attempts: 1 } },
    });
    run = await runCodex({ gatewayUrl: gw.url, configModel: "glm-4.6", args: ["-m", "gpt-5.5", "Create note.txt"], files: {} });
  }, CHILD_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    run?.cleanup();
  });

  it("exits 0, note.txt holds exactly what the patch added, and the final answer quotes apply_patch's output", () => {
    const result = run!.result;
    expect(result.code, diagnostics(result)).toBe(0);
    const note = join(run!.workdir, "note.txt");
    expect(existsSync(note), diagnostics(result)).toBe(true);
    expect(readFileSync(note, "utf8")).toBe(`${NOTE}\n`);
    expect(result.stdout.trim(), diagnostics(result)).toBe("apply_patch reported: A note.txt");
  });

  it("the fake was offered apply_patch as a function with one string parameter, input", () => {
    const chats = upstream.chatRequests();
    expect(chats.map((request) => (afterToolResult(request) ? "after tool" : "first")), diagnostics(run!.result)).toEqual(["first", "after tool"]);
    for (const request of chats) expect(request.body.model).toBe("deepseek-reasoner");
    const tool = toolsOf(chats[0]!).find((t) => t.function.name === "apply_patch");
    expect(tool, toolNamesOf(chats[0]!).join(",")).toBeDefined();
    expect(tool!.function.parameters).toMatchObject({ type: "object", properties: { input: { type: "string" } }, required: ["input"] });
    expect(Object.keys(tool!.function.parameters!.properties!)).toEqual(["input"]);
    expect(tool!.function.description).toContain("apply_patch");
    // Codex's client-run tool search is offered as a plain function too.
    expect(toolNamesOf(chats[0]!)).toContain("tool_search");
  });

  it("the call went back to Codex as custom_tool_call and returned to the model unchanged, with its reasoning", () => {
    const final = upstream.chatRequests().find(afterToolResult);
    expect(final, diagnostics(run!.result)).toBeDefined();
    const messages = messagesOf(final!);
    const assistant = messages.at(-2)!;
    // Codex echoed the custom_tool_call's raw input; the gateway made it the function's `input` again, byte for byte.
    expect(assistant.tool_calls?.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([[PATCH_CALL, "apply_patch", { input: PATCH }]]);
    expect(assistant.reasoning_content).toBe(REASONING);
    const result = messages.at(-1)!;
    expect(result).toMatchObject({ role: "tool", tool_call_id: PATCH_CALL });
    expect(textOf(result.content)).toMatch(/Success\. Updated the following files:\s*\nA note\.txt/);
  });

  it("left no process behind", () => {
    expect(run!.result.leftovers).toEqual([]);
  });
});

/* ---------------- scenario 3: the gateway's MCP tool and Codex's shell in one turn ---------------- */

describe("Codex with a turn that calls the gateway's MCP tool and Codex's shell together", () => {
  const SECRET = `GUAVA-${randomUUID().slice(0, 8)}`;
  const ECHO_MESSAGE = `marco-polo-${randomUUID().slice(0, 8)}`;
  const ECHO_CALL = "call_echo_1";
  const SHELL_CALL = "call_shell_1";

  const script: Script = (request) => {
    if (afterToolResult(request)) {
      const found = /secret word is ([\w-]+)/.exec(toolTexts(request))?.[1];
      return { text: found ? `The file says the secret word is ${found}.` : "I could not see the file's content." };
    }
    const names = toolNamesOf(request);
    if (names.includes("exec_command") && names.includes("everything__echo")) {
      return {
        text: "Checking both.",
        calls: [
          { id: ECHO_CALL, name: "everything__echo", arguments: { message: ECHO_MESSAGE } },
          { id: SHELL_CALL, name: "exec_command", arguments: { cmd: "cat hello.txt" } },
        ],
      };
    }
    return { text: "ok" };
  };

  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  let run: CodexRun | undefined;

  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai", script);
    gw = await startGateway({
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
      models: { "glm-*": { model: "fake/some-model" } },
      gateway: { retries: { attempts: 1 } },
    });
    run = await runCodex({
      gatewayUrl: gw.url,
      configModel: "glm-4.6",
      args: ["Echo a word and print hello.txt"],
      files: { "hello.txt": `The secret word is ${SECRET}.\n` },
    });
  }, CHILD_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    run?.cleanup();
  });

  it("exits 0 with the final answer", () => {
    const result = run!.result;
    expect(result.code, diagnostics(result)).toBe(0);
    expect(result.stdout.trim(), diagnostics(result)).toBe(`The file says the secret word is ${SECRET}.`);
  });

  it("the gateway ran the echo, Codex ran the shell, and the model got both results after its one turn", () => {
    const chats = upstream.chatRequests();
    expect(chats.map((request) => (afterToolResult(request) ? "after tool" : "first")), diagnostics(run!.result)).toEqual(["first", "after tool"]);
    const messages = messagesOf(chats[1]!);
    const turn = messages.findIndex((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0);
    // The turn Codex echoed back (its text, the mcp_call the gateway ran, its own call) is one assistant message again.
    expect(textOf(messages[turn]!.content)).toBe("Checking both.");
    expect(messages[turn]!.tool_calls?.map((call) => [call.id, call.function.name])).toEqual([
      [ECHO_CALL, "everything__echo"],
      [SHELL_CALL, "exec_command"],
    ]);
    const results = messages.slice(turn + 1);
    expect(results.map((m) => [m.role, m.tool_call_id])).toEqual([
      ["tool", ECHO_CALL],
      ["tool", SHELL_CALL],
    ]);
    expect(textOf(results[0]!.content)).toContain(`Echo: ${ECHO_MESSAGE}`);
    expect(textOf(results[1]!.content)).toContain(`The secret word is ${SECRET}.`);
  });

  it("left no process behind", () => {
    expect(run!.result.leftovers).toEqual([]);
  });
});

/* ---------------- scenario 4: Codex's own MCP server, behind its client-run tool search ---------------- */

/** The recordings' minimal stdio MCP server (fixtures/clients/tools/mcp-echo.js), one tool: echo. */
const MCP_ECHO_SERVER = `'use strict';
const readline = require('node:readline');
const rl = readline.createInterface({ input: process.stdin });
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
rl.on('line', (line) => {
  let m; try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;
  switch (m.method) {
    case 'initialize':
      return send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: (m.params && m.params.protocolVersion) || '2025-06-18', capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'echo-server', version: '1.0.0' } } });
    case 'ping': return send({ jsonrpc: '2.0', id: m.id, result: {} });
    case 'tools/list':
      return send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', description: 'Echo the given text back.', inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'Text to echo' } }, required: ['text'] } }] } });
    case 'tools/call':
      return send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'echo: ' + ((m.params.arguments || {}).text || '') }], isError: false } });
    case 'resources/list': return send({ jsonrpc: '2.0', id: m.id, result: { resources: [] } });
    case 'prompts/list': return send({ jsonrpc: '2.0', id: m.id, result: { prompts: [] } });
    default: return send({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found: ' + m.method } });
  }
});
`;

describe("Codex with -m gpt-5.5 and its own MCP server: tool_search (client-run) loads the namespace, then a namespaced call", () => {
  const SEARCH_CALL = "call_search_1";
  const ECHO_CALL = "call_client_echo_1";
  const ECHO_TEXT = `ping-${randomUUID().slice(0, 8)}`;

  const script: Script = (request) => {
    const messages = messagesOf(request);
    const last = messages.at(-1)!;
    const names = toolNamesOf(request);
    if (last.role === "tool" && last.tool_call_id === SEARCH_CALL) {
      // The search loaded Codex's MCP namespace: call its tool under the flat name it is offered as.
      if (names.includes("mcp__echo__echo")) return { calls: [{ id: ECHO_CALL, name: "mcp__echo__echo", arguments: { text: ECHO_TEXT } }] };
      return { text: `The search loaded nothing I can call: ${textOf(last.content)}` };
    }
    if (last.role === "tool") {
      const said = /echo: ([\w-]+)/.exec(toolTexts(request))?.[1];
      return { text: said ? `The echo tool said: echo: ${said}` : "The echo tool said nothing." };
    }
    if (names.includes("tool_search")) return { calls: [{ id: SEARCH_CALL, name: "tool_search", arguments: { query: "echo", limit: 8 } }] };
    return { text: "ok" };
  };

  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  let run: CodexRun | undefined;

  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai", script);
    gw = await startGateway({
      mcpServers: {},
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
      models: { "gpt-5.5": { model: "fake/some-model" } },
      gateway: { retries: { attempts: 1 } },
    });
    run = await runCodex({
      gatewayUrl: gw.url,
      configModel: "glm-4.6",
      args: ["-m", "gpt-5.5", "Call the echo tool"],
      files: {},
      homeFiles: { "mcp-echo.cjs": MCP_ECHO_SERVER },
      // As recorded (cx-05): without the approval mode, `approval_policy = "never"` refuses the MCP call.
      extraConfig: `\n[mcp_servers.echo]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["<HOME>/mcp-echo.cjs"]\ndefault_tools_approval_mode = "approve"\n`,
    });
  }, CHILD_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await gw?.close();
    await upstream?.close();
    run?.cleanup();
  });

  it("exits 0 with what Codex's echo tool returned", () => {
    const result = run!.result;
    expect(result.code, diagnostics(result)).toBe(0);
    expect(result.stdout.trim(), diagnostics(result)).toBe(`The echo tool said: echo: ${ECHO_TEXT}`);
  });

  it("tool_search went to Codex and back; the namespace it loaded was offered flat; the namespaced call went to Codex and back", () => {
    const chats = upstream.chatRequests();
    expect(chats, diagnostics(run!.result)).toHaveLength(3);
    const [first, second, third] = chats as [RecordedRequest, RecordedRequest, RecordedRequest];
    // Deferred until searched: the namespace is not offered before the search.
    expect(toolNamesOf(first)).toContain("tool_search");
    expect(toolNamesOf(first)).not.toContain("mcp__echo__echo");

    const searched = messagesOf(second);
    expect(searched.at(-2)!.tool_calls?.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([[SEARCH_CALL, "tool_search", { query: "echo", limit: 8 }]]);
    expect(searched.at(-1)).toMatchObject({ role: "tool", tool_call_id: SEARCH_CALL });
    expect(textOf(searched.at(-1)!.content)).toContain("mcp__echo__echo");
    const echo = toolsOf(second).find((tool) => tool.function.name === "mcp__echo__echo");
    expect(echo?.function.parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });

    const called = messagesOf(third);
    expect(called.at(-2)!.tool_calls?.map((call) => [call.id, call.function.name, JSON.parse(call.function.arguments)])).toEqual([[ECHO_CALL, "mcp__echo__echo", { text: ECHO_TEXT }]]);
    expect(called.at(-1)).toMatchObject({ role: "tool", tool_call_id: ECHO_CALL });
    expect(textOf(called.at(-1)!.content)).toContain(`echo: ${ECHO_TEXT}`);
  });

  it("left no process behind (Codex's MCP server included)", () => {
    expect(run!.result.leftovers).toEqual([]);
  });
});
