/**
 * End to end with the REAL Claude Code CLI (`@anthropic-ai/claude-code`, native binary) in
 * headless mode: Claude Code -> the gateway's Messages door (`POST /v1/messages`) -> a scripted
 * fake speaking OpenAI Chat Completions, with the real server-everything as the gateway's MCP
 * tools.
 *
 * The fake's first turn calls one MCP tool of the gateway (`everything__echo`) and one of
 * Claude Code's own tools (`Read`) together. The gateway must run the echo itself and hand only
 * the Read back to Claude Code; Claude Code reads the file and sends its tool_result; the fake
 * then answers with the secret word it found in the tool results it RECEIVED, so the final
 * answer only holds it when the file's content really reached the model.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type RunningGateway } from "../helpers/gateway-harness.ts";
import { startScriptedUpstream, type Script, type ScriptedUpstream } from "../helpers/scripted-upstream.ts";
import type { RecordedRequest } from "../helpers/fake-upstream.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const CLAUDE = join(root, "node_modules", ".bin", "claude");
const CHILD_TIMEOUT_MS = 90_000;

const SECRET = "PAPAYA";
const ECHO_MESSAGE = "marco-polo-7731";
const ECHO_CALL = "call_echo_1";
const READ_CALL = "call_read_1";

type ChatMessage = { role: string; content?: unknown; tool_call_id?: string; tool_calls?: { id: string; function: { name: string; arguments: string } }[] };

/** The text of an OpenAI chat message's content (a string or an array of text parts). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part === "string" ? part : String((part as { text?: unknown }).text ?? ""))).join("");
  return "";
}

const messagesOf = (request: RecordedRequest): ChatMessage[] => (request.body?.messages ?? []) as ChatMessage[];
const toolNamesOf = (request: RecordedRequest): string[] =>
  ((request.body?.tools ?? []) as { function?: { name?: string } }[]).map((tool) => String(tool.function?.name));

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A Claude Code child the test started, to end in afterAll if it is still there. */
const children = new Set<ChildProcess>();

/** Where Read finds the file: set per run, read by the script. */
let helloPath = "";

/**
 * What "the model" answers, decided from what it was sent, not from the request's index: after
 * tool results it answers with the secret word found in them; on a turn that offers both the
 * gateway's echo and Claude Code's Read it calls both; anything else (a side request) gets a
 * plain text.
 */
const script: Script = (request) => {
  const messages = messagesOf(request);
  if (messages.at(-1)?.role === "tool") {
    const toolOutput = messages
      .filter((m) => m.role === "tool")
      .map((m) => textOf(m.content))
      .join("\n");
    const found = /secret word is (\w+)/.exec(toolOutput)?.[1];
    return { text: found ? `The file says the secret word is ${found}.` : "I could not see the file's content." };
  }
  const offered = toolNamesOf(request);
  if (offered.includes("Read") && offered.includes("everything__echo")) {
    return {
      text: "Let me check both.",
      calls: [
        { id: ECHO_CALL, name: "everything__echo", arguments: { message: ECHO_MESSAGE } },
        { id: READ_CALL, name: "Read", arguments: { file_path: helloPath } },
      ],
    };
  }
  return { text: "ok" };
};

function runClaude(args: string[], env: Record<string, string>, cwd: string): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    // Its own process group, so afterAll can end Claude Code and anything it started.
    const proc = spawn(CLAUDE, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    children.add(proc);
    let stdout = "";
    let stderr = "";
    proc.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    proc.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => killGroup(proc), CHILD_TIMEOUT_MS);
    proc.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    proc.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

function killGroup(proc: ChildProcess): void {
  if (proc.pid === undefined) return;
  try {
    process.kill(-proc.pid, "SIGKILL");
  } catch {
    // already gone
  }
}

type StreamEvent = { type: string; subtype?: string; result?: unknown; message?: { model?: string; content?: unknown[] } };

/** Claude Code's stream-json output, one event a line. */
function eventsOf(stdout: string): StreamEvent[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as StreamEvent);
}

function killAll(): void {
  for (const proc of children) killGroup(proc);
  children.clear();
}

afterAll(killAll);

/**
 * Claude Code's default model (claude-opus-5-5: adaptive thinking, effort, tool search, a
 * `role:"system"` message) and claude-sonnet-4-5 (thinking with a budget, no `role:"system"`
 * message) send differently shaped requests; both land on the fake through the `claude-*` alias.
 */
describe.each([
  { label: "the default model", model: undefined, expectedModel: "claude-opus-5-5" },
  { label: "--model claude-sonnet-4-5-20250929", model: "claude-sonnet-4-5-20250929", expectedModel: "claude-sonnet-4-5-20250929" },
])("Claude Code (real CLI, headless) with $label, through the Messages door to an OpenAI-protocol model", ({ model, expectedModel }) => {
  let upstream: ScriptedUpstream;
  let gw: RunningGateway;
  let home: string;
  let workdir: string;
  let result: ChildResult;

  beforeAll(async () => {
    upstream = await startScriptedUpstream("openai", script);
    gw = await startGateway({
      providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1`, apiKey: "sk-upstream" } },
      // Claude Code sends its own model names (claude-opus-…, claude-sonnet-…, haiku for background work).
      models: { "claude-*": { model: "fake/some-model" } },
      gateway: { retries: { attempts: 1 } },
    });
    home = realpathSync(mkdtempSync(join(tmpdir(), "cc-e2e-home-")));
    workdir = realpathSync(mkdtempSync(join(tmpdir(), "cc-e2e-work-")));
    helloPath = join(workdir, "hello.txt");
    writeFileSync(helloPath, `Hello from the e2e test. The secret word is ${SECRET}.\n`);

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: home,
      TERM: "dumb",
      ANTHROPIC_BASE_URL: gw.url,
      ANTHROPIC_API_KEY: "sk-ant-dummy-e2e",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_ERROR_REPORTING: "1",
      // A failure should show up as a failure, not as minutes of Claude Code's own retries.
      CLAUDE_CODE_MAX_RETRIES: "1",
    };
    const prompt = "Echo a word with the gateway's echo tool and read hello.txt, then tell me the secret word.";
    const args = ["-p", prompt, "--output-format", "stream-json", "--verbose", "--allowedTools", "Read", "--max-turns", "4", ...(model ? ["--model", model] : [])];
    result = await runClaude(args, env, workdir);
  }, CHILD_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    killAll();
    await gw?.close();
    await upstream?.close();
    if (home) rmSync(home, { recursive: true, force: true });
    if (workdir) rmSync(workdir, { recursive: true, force: true });
  });

  const events = () => eventsOf(result.stdout);
  const diagnostics = () =>
    `exit ${result.code} (${result.signal})\n--- stderr ---\n${result.stderr.slice(-4000)}\n--- stdout ---\n${result.stdout.slice(-4000)}`;

  it("exits 0 and prints the final answer as its result", () => {
    expect(result.code, diagnostics()).toBe(0);
    const all = events();
    expect(all[0], diagnostics()).toMatchObject({ type: "system", subtype: "init", model: expectedModel });
    const last = all.at(-1)!;
    expect(last, diagnostics()).toMatchObject({ type: "result", subtype: "success", is_error: false });
    expect(String(last.result)).toContain(`The file says the secret word is ${SECRET}.`);
  });

  it("the model received the gateway's echo result and Claude Code's Read result", () => {
    const chats = upstream.chatRequests();
    expect(chats.length, diagnostics()).toBeGreaterThanOrEqual(2);
    // Claude Code's own model names land on the configured provider's model.
    for (const request of chats) expect(request.body.model).toBe("some-model");
    const first = chats.find((request) => toolNamesOf(request).includes("Read") && messagesOf(request).at(-1)?.role !== "tool");
    expect(first, "a first turn offering Claude Code's tools").toBeDefined();
    expect(toolNamesOf(first!)).toEqual(expect.arrayContaining(["Read", "everything__echo"]));

    const final = chats.find((request) => messagesOf(request).at(-1)?.role === "tool");
    expect(final, "a turn after the tool results").toBeDefined();
    const messages = messagesOf(final!);
    // The turn with both calls is in the history (the gateway spliced its hidden MCP step back
    // in), followed by both results.
    const assistant = messages.find((m) => m.role === "assistant" && m.tool_calls?.length);
    expect(assistant?.tool_calls?.map((c) => [c.id, c.function.name])).toEqual([
      [ECHO_CALL, "everything__echo"],
      [READ_CALL, "Read"],
    ]);
    const echoResult = messages.find((m) => m.role === "tool" && m.tool_call_id === ECHO_CALL);
    const readResult = messages.find((m) => m.role === "tool" && m.tool_call_id === READ_CALL);
    expect(textOf(echoResult?.content)).toContain(`Echo: ${ECHO_MESSAGE}`);
    expect(textOf(readResult?.content)).toContain(`The secret word is ${SECRET}`);
  });

  it("only Read was handed to Claude Code: it never saw or ran everything__echo", () => {
    const all = events();
    const toolUses = all
      .filter((event) => event.type === "assistant")
      .flatMap((event) => (event.message?.content ?? []) as { type: string; name?: string; id?: string }[])
      .filter((block) => block.type === "tool_use");
    expect(toolUses.map((block) => [block.id, block.name]), diagnostics()).toEqual([[READ_CALL, "Read"]]);
    const toolResults = all
      .filter((event) => event.type === "user")
      .flatMap((event) => (event.message?.content ?? []) as { type: string; tool_use_id?: string; content?: unknown }[])
      .filter((block) => block.type === "tool_result");
    expect(toolResults.map((block) => block.tool_use_id)).toEqual([READ_CALL]);
    expect(JSON.stringify(toolResults[0]?.content)).toContain(SECRET);
    expect(result.stdout).not.toContain(`Echo: ${ECHO_MESSAGE}`);
  });
});
