/**
 * The command line as a user runs it: `node bin/mcp-gateway.js <command>` in a child process
 * against real MCP servers.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { npmServer } from "../helpers/gateway-harness.ts";
import { isAlive } from "../helpers/mcp-servers.ts";
import { sendJson, startFakeUpstream } from "../helpers/fake-upstream.ts";
import { geminiSchemaErrors } from "../helpers/gemini-schema-rules.ts";
import { openaiStrictErrors } from "../helpers/openai-strict-rules.ts";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const bin = join(root, "bin", "mcp-gateway.js");
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

function writeConfig(config: object): string {
  const file = join(mkdtempSync(join(tmpdir(), "mcpgw-cli-")), "mcp.config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, LOG_LEVEL: "info", ...env } });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** check's tables with wrapped cells and notes joined back to one line each (continuations are indented 4+). */
function unwrapped(table: string): string {
  return table.replace(/\n {4,}/g, " ");
}

const everythingOnly = () => writeConfig({ mcpServers: { everything: npmServer("server-everything") } });

describe("mcp-gateway tools", () => {
  it("prints the tools as OpenAI receives them", async () => {
    const { code, stdout } = await run(["tools", "--config", everythingOnly()]);
    expect(code).toBe(0);
    const tools = JSON.parse(stdout) as { type: string; function: { name: string; parameters: unknown } }[];
    expect(tools.map((t) => t.function.name)).toContain("everything__echo");
    expect(tools.every((t) => t.type === "function")).toBe(true);
  });

  it("prints Gemini-subset and strict schemas that pass those providers' rules, with warnings on stderr", async () => {
    const config = everythingOnly();
    const gemini = await run(["tools", "--config", config, "--format", "gemini"]);
    const geminiTools = JSON.parse(gemini.stdout) as { function: { name: string; parameters: unknown } }[];
    for (const tool of geminiTools) expect(geminiSchemaErrors(tool.function.parameters), tool.function.name).toEqual([]);
    expect(gemini.stderr).toMatch(/warning: everything__/);

    const strict = await run(["tools", "--config", config, "--format", "openai-strict"]);
    const strictTools = JSON.parse(strict.stdout) as { function: { name: string; strict?: boolean; parameters: unknown } }[];
    for (const tool of strictTools.filter((t) => t.function.strict)) expect(openaiStrictErrors(tool.function.parameters), tool.function.name).toEqual([]);
  });

  it("prints Anthropic tools with input_schema", async () => {
    const { stdout } = await run(["tools", "--config", everythingOnly(), "--format", "anthropic"]);
    const tools = JSON.parse(stdout) as { name: string; input_schema: { type: string } }[];
    expect(tools.find((t) => t.name === "everything__echo")?.input_schema.type).toBe("object");
  });

  it("refuses an unknown format", async () => {
    const { code, stderr } = await run(["tools", "--config", everythingOnly(), "--format", "cobol"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--format");
  });
});

describe("mcp-gateway with bad options", () => {
  it.each([
    [["serve", "--port", "1e3"], '--port: expected a port number 0-65535, got "1e3"'],
    [["serve", "--colour"], "--colour"],
  ])("%j: names the problem, prints the usage and exits 2", async (args, message) => {
    const { code, stderr } = await run(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr).toContain("Usage: mcp-gateway serve [--config PATH] [--host H] [--port N] [--workers N]\n                         [--allow-unauthenticated]");
  });

  it("refuses an option of another command, with that command's help", async () => {
    const { code, stderr } = await run(["tools", "--port", "80"]);
    expect(code).toBe(2);
    expect(stderr).toContain('mcp-gateway: --port is not an option of "tools"');
    expect(stderr).toContain("Usage: mcp-gateway tools [--config PATH] [--format F]");
  });
});

describe("mcp-gateway --help and --version", () => {
  const lines = (text: string) => text.split("\n");

  it("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    for (const args of [["--version"], ["-v"], ["serve", "--version"]]) {
      const { code, stdout } = await run(args);
      expect(code, args.join(" ")).toBe(0);
      expect(stdout).toBe(`${version}\n`);
    }
  });

  it("--help lists every command and every option the command line accepts, in 100 columns", async () => {
    const { OPTIONS, COMMANDS } = await import("../../src/cli/args.ts");
    const { code, stdout } = await run(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: mcp-gateway <command> [options]");
    for (const command of ["serve", "stdio", "tools", "check"]) expect(stdout).toMatch(new RegExp(`^  ${command} `, "m"));
    expect(Object.keys(COMMANDS).sort()).toEqual(["check", "serve", "stdio", "tools"]);
    // The option the issue found missing, and the rest of what parseArgs accepts.
    expect(stdout).toContain("--allow-unauthenticated");
    for (const [name, option] of Object.entries(OPTIONS)) {
      expect(stdout).toContain(`--${name}`);
      if (option.short) expect(stdout).toContain(`-${option.short}, --${name}`);
    }
    for (const line of lines(stdout)) expect(line.length, line).toBeLessThanOrEqual(100);
    expect((await run(["help"])).stdout).toBe(stdout);
  });

  it("<command> --help (and help <command>) prints that command's help with its own options", async () => {
    const serve = await run(["serve", "--help"]);
    expect(serve.code).toBe(0);
    // The synopsis wraps under its first option to stay within 100 columns.
    expect(serve.stdout).toMatch(/^Usage: mcp-gateway serve \[--config PATH\] \[--host H\] \[--port N\] \[--workers N\]\n {25}\[--allow-unauthenticated\]\n/);
    expect(serve.stdout).toContain("--allow-unauthenticated  listen on a non-loopback host without gateway.apiKeys");
    expect(serve.stdout).not.toContain("--format");
    expect((await run(["help", "serve"])).stdout).toBe(serve.stdout);
    const tools = await run(["tools", "-h"]);
    expect(tools.stdout).toMatch(/^Usage: mcp-gateway tools \[--config PATH\] \[--format F\]\n/);
    expect(tools.stdout).not.toContain("--port");
    for (const command of ["serve", "stdio", "tools", "check"]) {
      const { stdout } = await run([command, "--help"]);
      expect(stdout).toContain(`Usage: mcp-gateway ${command}`);
      for (const line of lines(stdout)) expect(line.length, line).toBeLessThanOrEqual(100);
    }
    // Seven runs of the bin one after another: on a loaded 2-core machine (the whole suite) they
    // took 30 s once, the default timeout.
  }, 90_000);
});

describe("mcp-gateway with an unknown command", () => {
  it("names it, prints the usage on stderr and exits 2", async () => {
    const { code, stdout, stderr } = await run(["bogus"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain('mcp-gateway: unknown command "bogus"');
    expect(stderr).toContain("Usage: mcp-gateway <command>");
  });
});

describe("mcp-gateway check", () => {
  it("prints a table and exits non-zero when a server fails", async () => {
    const config = writeConfig({
      mcpServers: {
        everything: npmServer("server-everything"),
        broken: { command: process.execPath, args: ["-e", "console.error('missing FOO_TOKEN'); process.exit(3)"] },
      },
    });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/everything\s+stdio\s+ready\s+\d+/);
    expect(stdout).toMatch(/broken\s+stdio\s+failed/);
    expect(unwrapped(stdout)).toContain("missing FOO_TOKEN");
  });

  it("fits its table in 100 columns: a long error wraps under its column, quirk switches go on a line under the provider", async () => {
    const models = await startFakeUpstream((_req, res) => sendJson(res, 200, { object: "list", data: [] }));
    try {
      const long = "missing FOO_TOKEN: this server needs a token for its upstream API; set it in the entry's env, see https://example.com/a/rather/long/path/to/the/docs";
      const config = writeConfig({
        mcpServers: { broken: { command: process.execPath, args: ["-e", `console.error(${JSON.stringify(long)}); process.exit(3)`] } },
        providers: {
          glm: { type: "openai", baseURL: `${models.url}/v1`, quirks: { preset: "zhipu", toolChoice: "send" } },
          claude: { type: "anthropic", apiKey: "${MCPGW_TEST_UNSET_KEY}" },
        },
      });
      const { code, stdout } = await run(["check", "--config", config]);
      expect(code).toBe(1);
      for (const line of stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(100);
      // Every word of the error is there, in order, wrapped under the error column.
      const errorColumn = stdout.split("\n")[2]!.indexOf("error");
      const errorLines = stdout.split("\n").filter((l) => l.length > errorColumn && /^(broken|\s)/.test(l) && l.slice(errorColumn).trim() !== "");
      expect(errorLines.map((l) => l.slice(errorColumn).trim()).join(" ")).toContain(long);
      expect(stdout).toMatch(/^glm\s+openai\s+zhipu\s+ok\s+\d+\s*$/m);
      expect(unwrapped(stdout)).toMatch(/^ {2}quirks: zhipu \(overrides: toolChoice=send\): maxTokensField=max_tokens, .*assistantContentString, ensureUserMessage, toolTypeFunction, flattenContent$/m);
      expect(stdout).toMatch(/^claude\s+anthropic\s+anthropic\s+unavailable\s+set MCPGW_TEST_UNSET_KEY$/m);
    } finally {
      await models.close();
    }
  });

  it("exits 0 when everything is reachable, and shows each provider's quirk preset", async () => {
    const models = await startFakeUpstream((_req, res) => sendJson(res, 200, { object: "list", data: [] }));
    try {
      const config = writeConfig({
        mcpServers: { everything: npmServer("server-everything"), narrow: { ...npmServer("server-everything"), tools: { allow: ["echo"] } } },
        providers: { local: { type: "openai", baseURL: `${models.url}/v1`, quirks: "ollama" } },
      });
      const { code, stdout } = await run(["check", "--config", config]);
      expect(code).toBe(0);
      // The tools count is what is offered, after the allow/deny filter.
      expect(stdout).toMatch(/narrow\s+stdio\s+ready\s+1 of \d+\s/);
      expect(stdout).toMatch(/everything\s+stdio\s+ready\s+\d+\s/);
      expect(stdout).toMatch(/^local\s+openai\s+ollama\s+ok\s+\d+$/m);
      expect(unwrapped(stdout)).toContain("\n  quirks: ollama: maxTokensField=max_tokens, openaiOnlyFields=[frequency_penalty, presence_penalty], messageNames=false, imageDetail=false, objectArguments, textToolCalls=hermes\n");
      expect(models.requests[0]!.path).toBe("/v1/models");
    } finally {
      await models.close();
    }
  });

  it("reports a provider whose key variable is unset", async () => {
    const config = writeConfig({ mcpServers: {}, providers: { openai: { type: "openai", apiKey: "${MCPGW_TEST_UNSET_KEY}" } } });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^openai\s+openai\s+openai\s+unavailable\s+set MCPGW_TEST_UNSET_KEY\n {2}quirks: openai: OpenAI defaults$/m);
  });

  it("reports an MCP server whose ${VAR} is unset as unavailable, naming it, without starting it", async () => {
    const config = writeConfig({
      mcpServers: {
        remote: { url: "http://127.0.0.1:${MCPGW_TEST_UNSET_PORT}/mcp", headers: { Authorization: "Bearer ${MCPGW_TEST_UNSET_TOKEN}" } },
        everything: npmServer("server-everything"),
      },
    });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(unwrapped(stdout)).toMatch(/remote\s+http\s+unavailable\s+0\s+not started: set MCPGW_TEST_UNSET_PORT, MCPGW_TEST_UNSET_TOKEN/);
    expect(stdout).toMatch(/everything\s+stdio\s+ready/);
  });

  it("reports config errors with the JSON path and exit code 2", async () => {
    const config = writeConfig({ mcpServers: { a: { comand: "x" } } });
    const { code, stderr } = await run(["check", "--config", config]);
    expect(code).toBe(2);
    expect(stderr).toContain('mcpServers.a.comand: unknown key "comand" (did you mean "command"?)');
  });
});

/** `mcp-gateway serve` on the config, resolved once it says where it listens. */
async function startServe(config: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [bin, "serve", "--config", config], { cwd: root, env: { ...process.env, LOG_LEVEL: "info" } });
  children.push(child);
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /listening on (http:\/\/[^"\s]+)/.exec(stderr);
      if (match) resolve(match[1]!);
    };
    child.stderr.on("data", look);
    child.on("exit", () => reject(new Error(`exited early: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

describe("mcp-gateway serve", () => {
  it("serves, and on SIGTERM finishes, closes every MCP server and exits 0", async () => {
    const config = writeConfig({ mcpServers: { everything: npmServer("server-everything") }, gateway: { port: 0 } });
    const { child, url } = await startServe(config);
    // It listens before its MCP servers are up: /ready says when their first starts have ended.
    await vi.waitFor(async () => expect((await fetch(`${url}/ready`)).status).toBe(200), { timeout: 20_000, interval: 50 });
    const health = (await (await fetch(`${url}/health`)).json()) as { servers: { name: string; status: string }[] };
    expect(health.servers).toEqual([expect.objectContaining({ name: "everything", status: "ready" })]);
    const serverPids = childPids(child.pid!);
    expect(serverPids.length).toBeGreaterThan(0);
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    for (const pid of serverPids) expect(isAlive(pid), `MCP server pid ${pid} still alive`).toBe(false);
  });

  it("on SIGTERM, an MCP tool call in progress on /mcp still gets its result, then it exits 0", async () => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const config = writeConfig({ mcpServers: { everything: npmServer("server-everything") }, gateway: { port: 0 } });
    const { child, url } = await startServe(config);
    const client = new Client({ name: "shutdown-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    let signalled = false;
    const result = await client.callTool({ name: "everything__trigger-long-running-operation", arguments: { duration: 1, steps: 4 } }, undefined, {
      timeout: 15_000,
      // SIGTERM once the call is under way (its first progress), not on a timer.
      onprogress: () => {
        if (!signalled) child.kill("SIGTERM");
        signalled = true;
      },
    });
    expect(signalled).toBe(true);
    expect(JSON.stringify(result.content)).toContain("Long running operation completed");
    expect(await exit).toBe(0);
    await client.close();
  });

  it("stops on SIGTERM even when whatever read its stderr has gone (a log shipper that died, `| head -1`)", async () => {
    const config = writeConfig({ mcpServers: {}, gateway: { port: 0 } });
    const { child, url } = await startServe(config);
    // The reader goes away: the gateway's next log lines meet a broken pipe (EPIPE).
    child.stderr.destroy();
    for (let i = 0; i < 3; i++) await (await fetch(`${url}/v1/models`)).text();
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
  });

  it("refuses a non-loopback host without API keys", async () => {
    const config = writeConfig({ mcpServers: {} });
    const { code, stderr } = await run(["serve", "--config", config, "--host", "0.0.0.0", "--port", "0"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--allow-unauthenticated");
  });
});

/** Direct children of a process (Linux /proc). */
function childPids(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}


describe("mcp-gateway check refuses what serve would refuse", () => {
  it("reports prefix \"\" collisions (check, and tools)", async () => {
    const config = writeConfig({ mcpServers: { a: { ...npmServer("server-everything"), prefix: "" }, b: { ...npmServer("server-everything"), prefix: "" } } });
    const { code, stdout } = await run(["check", "--config", config]);
    expect(code).toBe(1);
    expect(stdout).toContain('error: prefix "" makes tool names collide: a/echo, b/echo all want "echo"');
    const tools = await run(["tools", "--config", config]);
    expect(tools.code).toBe(1);
    expect(tools.stderr).toContain('error: prefix "" makes tool names collide: a/echo, b/echo all want "echo"');
  });

  it("bad quirks are config errors (exit 2, the file and JSON path), for check and serve alike, never 'valid'", async () => {
    const config = writeConfig({ mcpServers: {}, providers: { c: { type: "anthropic", quirks: "zhipu" }, d: { type: "openai", quirks: "zhipuu" } } });
    for (const command of ["check", "serve"]) {
      const { code, stdout, stderr } = await run([command, "--config", config, ...(command === "serve" ? ["--port", "0"] : [])]);
      expect(code, command).toBe(2);
      expect(stdout).not.toContain("valid");
      expect(stderr).toContain(config);
      expect(stderr).toContain("providers.c.quirks: quirks presets apply to OpenAI-protocol providers");
      expect(stderr).toContain('providers.d.quirks: unknown quirks preset "zhipuu" (did you mean "zhipu"?)');
    }
  });
});

describe("graceful shutdown with a request in flight", () => {
  it("SIGTERM lets the in-flight stream finish, then exits 0", async () => {
    const { startScriptedUpstream } = await import("../helpers/scripted-upstream.ts");
    const { deferred } = await import("../helpers/scripted-model.ts");
    const release = deferred();
    const upstream = await startScriptedUpstream("openai", () => ({ text: "finished after SIGTERM", hang: release.promise }));
    try {
      const config = writeConfig({ mcpServers: {}, providers: { fake: { type: "openai", baseURL: `${upstream.url}/v1` } }, gateway: { port: 0 } });
      const { child, url, stderr } = await startServe(config);
      const response = await fetch(`${url}/v1/chat/completions`, { method: "POST", body: JSON.stringify({ model: "fake/m", stream: true, messages: [{ role: "user", content: "hi" }] }) });
      const reader = response.body!.getReader();
      let body = new TextDecoder().decode((await reader.read()).value); // the stream has started
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      child.kill("SIGTERM");
      await new Promise<void>((resolve) => {
        const check = () => {
          if (stderr().includes("shutting down")) resolve();
        };
        child.stderr.on("data", check);
        check();
      });
      release.resolve();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        body += new TextDecoder().decode(value);
      }
      expect(body).toContain("data: [DONE]");
      expect(body).not.toContain('"error"');
      expect(await exit).toBe(0);
    } finally {
      release.resolve();
      await upstream.close();
    }
  });
});
