import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfigFile, parseConfigText, resolveConfig, resolveConfigPath } from "../../src/core/config/index.ts";

function problemsOf(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("config", () => {
  it("accepts the Claude Desktop mcpServers format unchanged and fills defaults", () => {
    const config = resolveConfig(
      {
        mcpServers: {
          everything: { command: "npx", args: ["@modelcontextprotocol/server-everything"] },
          remote: { type: "http", url: "http://127.0.0.1:3001/mcp", headers: { Authorization: "Bearer x" } },
          legacy: { type: "sse", url: "http://127.0.0.1:3002/sse", disabled: true },
          bare: { url: "http://127.0.0.1:3003/mcp" },
        },
      },
      {},
    );
    expect(config.servers.map((s) => [s.name, s.transport, s.prefix, s.disabled])).toEqual([
      ["everything", "stdio", "everything__", false],
      ["remote", "http", "remote__", false],
      ["legacy", "sse", "legacy__", true],
      ["bare", "http", "bare__", false],
    ]);
    expect(config.gateway).toMatchObject({ host: "127.0.0.1", port: 4000, maxIterations: 10, toolTimeoutMs: 60000 });
  });

  it("interpolates ${VAR} and ${VAR:-default}, recording unset variables per provider", () => {
    const config = resolveConfig(
      {
        mcpServers: { r: { url: "http://${HOST:-127.0.0.1}:3001/mcp", headers: { Authorization: "Bearer ${TOKEN}" } } },
        providers: {
          openai: { type: "openai", apiKey: "${OPENAI_API_KEY}" },
          anthropic: { type: "anthropic", apiKey: "${ANTHROPIC_API_KEY}" },
        },
      },
      { TOKEN: "t0k", ANTHROPIC_API_KEY: "sk-ant" },
    );
    const remote = config.servers[0]!;
    expect(remote.transport === "http" && remote.url).toBe("http://127.0.0.1:3001/mcp");
    expect(remote.transport === "http" && remote.headers.Authorization).toBe("Bearer t0k");
    expect(config.providers.openai!.missingVariables).toEqual(["OPENAI_API_KEY"]);
    expect(config.providers.anthropic!.missingVariables).toEqual([]);
    expect(config.providers.anthropic!.apiKey).toBe("sk-ant");
  });

  it("a bad server or provider name says what a name may hold", () => {
    const problems = problemsOf(() => resolveConfig({ mcpServers: { "my server": { command: "x" } }, providers: { "bad name": { type: "openai" } } }, {}));
    expect(problems).toEqual([
      { path: 'mcpServers["my server"]', message: "bad name: server names hold letters, digits, _ . or -" },
      { path: 'providers["bad name"]', message: "bad name: provider names hold letters, digits, _ . or -" },
    ]);
  });

  it("records unset variables per MCP server too (once each)", () => {
    const config = resolveConfig(
      {
        mcpServers: {
          remote: { url: "http://127.0.0.1:${PORT}/mcp", headers: { Authorization: "Bearer ${TOKEN}", "X-Also": "${TOKEN}" } },
          local: { command: "node", args: ["${SCRIPT:-server.js}"], env: { KEY: "${KEY}" } },
          fine: { command: "node" },
          // Names that a JSON path writes in brackets: matched by key, not by text.
          "a.b": { command: "node", env: { T: "${DOTTED}" } },
          "1password": { url: "http://127.0.0.1/mcp", headers: { Authorization: "Bearer ${OP_TOKEN}" } },
        },
        providers: { "p.x": { type: "openai", apiKey: "${PX_KEY}" } },
      },
      { KEY: "k" },
    );
    expect(config.servers.map((s) => [s.name, s.missingVariables])).toEqual([
      ["remote", ["PORT", "TOKEN"]],
      ["local", []],
      ["fine", []],
      ["a.b", ["DOTTED"]],
      ["1password", ["OP_TOKEN"]],
    ]);
    expect(config.providers["p.x"]!.missingVariables).toEqual(["PX_KEY"]);
  });

  it("names the JSON path of every bad field and what was expected", () => {
    const problems = problemsOf(() =>
      resolveConfig({ mcpServers: { a: { command: 5 }, b: { args: ["x"] } }, gateway: { port: "4000" } }, {}),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "mcpServers.a.command", message: expect.stringContaining("expected string") },
        { path: "mcpServers.b.command", message: expect.stringContaining('needs a "command"') },
        { path: "gateway.port", message: expect.stringContaining("expected number") },
      ]),
    );
  });

  it("rejects unknown keys with a did-you-mean", () => {
    const problems = problemsOf(() =>
      resolveConfig({ mcpServers: { a: { command: "x", arg: ["y"] } }, gatway: {}, providers: { p: { type: "openai", baseUrl: "http://x" } } }, {}),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "mcpServers.a.arg", message: 'unknown key "arg" (did you mean "args"?)' },
        { path: "gatway", message: 'unknown key "gatway" (did you mean "gateway"?)' },
        { path: "providers.p.baseUrl", message: 'unknown key "baseUrl" (did you mean "baseURL"?)' },
      ]),
    );
  });

  it("checks references between sections", () => {
    const problems = problemsOf(() =>
      resolveConfig(
        {
          mcpServers: { files: { command: "x" } },
          providers: { openai: { type: "openai" } },
          models: { default: { model: "nope/gpt", fallbacks: ["openai/gpt-4o"], mcpServers: ["files", "ghost"] } },
        },
        {},
      ),
    );
    expect(problems.map((p) => p.path)).toEqual(["models.default.model", "models.default.mcpServers[1]"]);
  });

  it("refuses a remote server without url and a server with both command and url", () => {
    const problems = problemsOf(() => resolveConfig({ mcpServers: { a: { type: "http" }, b: { command: "x", url: "http://h/" } } }, {}));
    expect(problems.map((p) => p.path).sort()).toEqual(["mcpServers.a.url", "mcpServers.b.url"]);
  });

  it("parses comments and trailing commas, and reports JSON syntax errors with a line", () => {
    const config = parseConfigText('{\n // servers\n "mcpServers": { "a": { "command": "x", }, },\n}', {});
    expect(config.servers).toHaveLength(1);
    const problems = problemsOf(() => parseConfigText('{\n "mcpServers": {\n  "a": { "command": }\n}', {}));
    expect(problems[0]!.message).toMatch(/not valid JSON: .* at line 3/);
  });

  it("keeps a __proto__ key as data, never as a prototype", () => {
    const problems = problemsOf(() => parseConfigText('{"mcpServers": {}, "__proto__": {"polluted": true}}', {}));
    expect(problems[0]!.path).toBe("__proto__");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("resolves the config path from flag, then environment, then the default", async () => {
    expect(resolveConfigPath("/a/b.json", { MCP_GATEWAY_CONFIG: "/c.json" })).toBe("/a/b.json");
    expect(resolveConfigPath(undefined, { MCP_GATEWAY_CONFIG: "/c.json" })).toBe("/c.json");
    expect(resolveConfigPath(undefined, {})).toBe(join(process.cwd(), "mcp.config.json"));
    expect(resolveConfigPath(undefined, { MCP_GATEWAY_CONFIG: "" })).toBe(join(process.cwd(), "mcp.config.json"));
    const dir = mkdtempSync(join(tmpdir(), "cfg-"));
    const file = join(dir, "c.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    expect((await loadConfigFile(file, {})).path).toBe(file);
    await expect(loadConfigFile(join(dir, "missing.json"), {})).rejects.toThrow(/cannot read the file/);
  });
});

describe("config safety", () => {
  it("refuses a gateway key whose variable is unset, instead of turning authentication off", () => {
    expect(() => resolveConfig({ mcpServers: {}, gateway: { apiKeys: ["${GATEWAY_KEY}"] } }, {})).toThrow(/gateway\.apiKeys\[0\]: the environment variable GATEWAY_KEY is not set/);
    expect(resolveConfig({ mcpServers: {}, gateway: { apiKeys: ["${GATEWAY_KEY}"] } }, { GATEWAY_KEY: "k-123" }).gateway.apiKeys).toEqual(["k-123"]);
  });

  it("refuses a stdio server with a url", () => {
    expect(() => resolveConfig({ mcpServers: { a: { type: "stdio", url: "http://h/" } } }, {})).toThrow(/mcpServers\.a\.url/);
  });
});

describe("gateway.observability", () => {
  it("defaults to metrics and the web view on, 200 recent requests, no content capture", () => {
    expect(resolveConfig({ mcpServers: {} }, {}).gateway.observability).toEqual({ metrics: true, ui: true, recentRequests: 200, captureContent: false });
    expect(resolveConfig({ mcpServers: {}, gateway: { observability: { ui: false, recentRequests: 0 } } }, {}).gateway.observability).toEqual({ metrics: true, ui: false, recentRequests: 0, captureContent: false });
  });

  it("names the path of a bad field, and suggests the key meant", () => {
    const problems = problemsOf(() => resolveConfig({ mcpServers: {}, gateway: { observability: { metrics: "yes", recentRequests: -1, captureContents: true } } }, {}));
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "gateway.observability.metrics", message: expect.stringContaining("expected boolean") },
        { path: "gateway.observability.recentRequests", message: expect.stringMatching(/>=0|too small/i) },
        { path: "gateway.observability.captureContents", message: 'unknown key "captureContents" (did you mean "captureContent"?)' },
      ]),
    );
  });
});
