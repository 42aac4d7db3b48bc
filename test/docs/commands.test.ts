/**
 * Every command in README.md and docs/*.md that starts the gateway runs this project: `npx` of
 * this package's name (the npm name `mcp-gateway` belongs to an unrelated package, which `npx -y`
 * would download and run), one of this package's bins, or `node …/bin/<its bin file>`. Shell
 * lines of code blocks, inline code, and JSON `"command"`/`"args"` entries are all checked.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; bin: Record<string, string> };
const binNames = Object.keys(pkg.bin);
const binFiles = Object.values(pkg.bin).map((file) => file.replace(/^\.\//, ""));
const SUBCOMMANDS = new Set(["serve", "stdio", "tools", "check", "help"]);

interface Invocation {
  /** How it was found: `npx`, `node`, `bin`, `npm install`. */
  kind: string;
  text: string;
  /** Why it would not run this project; undefined when it would. */
  problem?: string;
}

/** A package spec's name: `mcp-gateway@1.0.0` → `mcp-gateway`, `@scope/x@2` → `@scope/x`. */
function specName(spec: string): string {
  const at = spec.indexOf("@", 1);
  return at === -1 ? spec : spec.slice(0, at);
}

const isPath = (spec: string) => /^(\.{0,2}\/|~\/|file:)/.test(spec);
const mentionsGateway = (token: string) => /gateway/i.test(token);

/** The gateway invocations in one command line's words (also nested: the inspector's `--cli node …`). */
function invocationsIn(words: string[]): Invocation[] {
  const found: Invocation[] = [];
  const text = words.join(" ");
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "npx" || (word === "npm" && (words[i + 1] === "exec" || words[i + 1] === "x"))) {
      // npx [options] <package> [args…] | npx --package <p> [--] <command> [args…]
      let j = i + (word === "npx" ? 1 : 2);
      const packages: string[] = [];
      while (j < words.length && words[j]!.startsWith("-") && words[j] !== "--") {
        const option = words[j]!;
        if (option === "-p" || option === "--package") packages.push(words[++j] ?? "");
        else if (option.startsWith("--package=")) packages.push(option.slice("--package=".length));
        j++;
      }
      if (words[j] === "--") j++;
      const spec = words[j];
      if (spec === undefined) continue;
      const runsGateway = mentionsGateway(spec) || packages.some(mentionsGateway) || SUBCOMMANDS.has(words[j + 1] ?? "");
      if (runsGateway) {
        const named = packages.length > 0 ? packages : [spec];
        const foreign = named.filter((p) => !isPath(p) && specName(p) !== pkg.name);
        const command = packages.length > 0 ? spec : undefined;
        found.push({
          kind: "npx",
          text,
          ...(foreign.length > 0
            ? { problem: `npx of "${foreign.join(", ")}", not this package ("${pkg.name}")` }
            : command !== undefined && !binNames.includes(command)
              ? { problem: `"${command}" is not a bin of ${pkg.name}` }
              : {}),
        });
      }
      i = j; // the package's own arguments are scanned next (a nested `node bin/…`)
      continue;
    }
    if (word === "node") {
      let j = i + 1;
      while (j < words.length && words[j]!.startsWith("-")) j++;
      const script = words[j];
      if (script === undefined) continue;
      if (mentionsGateway(script) || SUBCOMMANDS.has(words[j + 1] ?? "")) {
        const ours = binFiles.some((file) => script === file || script.endsWith(`/${file}`));
        found.push({ kind: "node", text, ...(ours ? {} : { problem: `node ${script} is not a bin file of ${pkg.name} (${binFiles.join(", ")})` }) });
      }
      i = j;
      continue;
    }
    if (word === "npm" && ["install", "i", "add", "link"].includes(words[i + 1] ?? "")) {
      for (const spec of words.slice(i + 2).filter((w) => !w.startsWith("-") && mentionsGateway(w))) {
        found.push({ kind: "npm install", text, ...(isPath(spec) || specName(spec) === pkg.name ? {} : { problem: `installs "${spec}", not ${pkg.name}` }) });
      }
      continue;
    }
    // A program named like the gateway, given one of its commands: it must be one of our bins.
    if (mentionsGateway(word) && !word.includes("/") && SUBCOMMANDS.has(words[i + 1] ?? "")) {
      found.push({ kind: "bin", text, ...(binNames.includes(word) ? {} : { problem: `"${word}" is not a bin of ${pkg.name} (${binNames.join(", ")})` }) });
    }
  }
  return found;
}

/** Shell words, quotes removed (enough for documentation commands). */
function words(line: string): string[] {
  return (line.match(/'[^']*'|"[^"]*"|[^\s]+/g) ?? []).map((w) => w.replace(/^(['"])(.*)\1$/, "$2"));
}

/** One shell line (continuations joined) → its commands' words. */
function shellCommands(line: string): string[][] {
  const code = line.replace(/^\s*\$\s+/, "").replace(/\s#.*$/, "");
  return code
    .split(/&&|\|\||;|\|/)
    .map((part) => words(part))
    .map((ws) => {
      // Leading VAR=value assignments are not the program.
      let k = 0;
      while (k < ws.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(ws[k]!)) k++;
      return ws.slice(k);
    })
    .filter((ws) => ws.length > 0);
}

/** JSON "command" + "args" entries (Claude Desktop's, mcp.config.json's) as words. */
function jsonCommands(text: string): string[][] {
  const out: string[][] = [];
  for (const match of text.matchAll(/"command"\s*:\s*"([^"]*)"\s*,\s*"args"\s*:\s*(\[[^\]]*\])/g)) {
    let args: string[] = [];
    try {
      args = JSON.parse(match[2]!) as string[];
    } catch {
      args = [...match[2]!.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
    }
    out.push([match[1]!, ...args]);
  }
  // A "command" alone (no args) that names the gateway.
  for (const match of text.matchAll(/"command"\s*:\s*"([^"]*)"(?!\s*,\s*"args")/g)) out.push([match[1]!, "serve"]);
  return out;
}

interface Found extends Invocation {
  file: string;
}

/** Every gateway invocation in one markdown document. */
function invocationsInMarkdown(markdown: string, file = "(text)"): Found[] {
  const found: Found[] = [];
  const add = (commands: string[][]) => {
    for (const ws of commands) for (const inv of invocationsIn(ws)) found.push({ ...inv, file });
  };
  const prose: string[] = [];
  const fence = /^([ \t]*)```([\w-]*)[^\n]*\n([\s\S]*?)^\1```/gm;
  let last = 0;
  for (const block of markdown.matchAll(fence)) {
    prose.push(markdown.slice(last, block.index));
    last = block.index + block[0].length;
    const lang = block[2]!.toLowerCase();
    const body = block[3]!;
    if (["json", "jsonc", "json5"].includes(lang)) {
      add(jsonCommands(body));
    } else if (["", "sh", "bash", "shell", "console", "zsh", "dockerfile", "yaml", "yml"].includes(lang)) {
      for (const line of body.replace(/\\\n\s*/g, " ").split("\n")) add(shellCommands(line));
      add(jsonCommands(body));
    }
  }
  prose.push(markdown.slice(last));
  for (const text of prose) {
    for (const span of text.matchAll(/`([^`\n]+)`/g)) add(shellCommands(span[1]!));
    add(jsonCommands(text));
  }
  return found;
}

function documents(): { file: string; text: string }[] {
  const docs = readdirSync(join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs].map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));
}

describe("the package's names", () => {
  it("has a bin named like the package (what `npx -y <package>` runs when there are several) and keeps the bin mcp-gateway", () => {
    expect(pkg.name).not.toBe("mcp-gateway"); // an unrelated package on npm
    const unscoped = pkg.name.replace(/^@[^/]+\//, "");
    expect(pkg.bin[unscoped]).toBe(pkg.bin["mcp-gateway"]);
    expect(pkg.bin["mcp-gateway"]).toBe("./bin/mcp-gateway.js");
  });
});

describe("the documented commands run this project", () => {
  const found = documents().flatMap(({ file, text }) => invocationsInMarkdown(text, file));

  it("finds the documents' gateway commands (of every kind)", () => {
    const kinds = new Set(found.map((f) => f.kind));
    for (const kind of ["npx", "node", "bin"]) expect(kinds, `no "${kind}" invocation found: is the parser blind?`).toContain(kind);
    expect(found.length).toBeGreaterThanOrEqual(10);
  });

  it("every one resolves to this package or its bins", () => {
    expect(found.filter((f) => f.problem !== undefined).map((f) => `${f.file}: ${f.text}: ${f.problem}`)).toEqual([]);
  });
});

describe("the checker itself", () => {
  const problems = (markdown: string) => invocationsInMarkdown(markdown).filter((f) => f.problem !== undefined);

  it.each([
    ["inline npx of the other package", "Run `npx mcp-gateway stdio --config /abs/mcp.config.json`."],
    ["npx -y with a version", "```sh\nnpx -y mcp-gateway@1.0.0 serve --port 4000\n```"],
    ["npm exec", "```sh\nnpm exec -- mcp-gateway check\n```"],
    ["npx --package", "```sh\nnpx --package=mcp-gateway mcp-gateway stdio\n```"],
    ["a desktop config", '```json\n{ "mcpServers": { "gw": { "command": "npx", "args": ["-y", "mcp-gateway", "stdio"] } } }\n```'],
    ["a bin that is not ours", "```sh\nmcpgateway serve\n```"],
    ["another script", '```json\n{ "command": "node", "args": ["/abs/other-gateway/index.js", "stdio"] }\n```'],
    ["installing the other package", "```sh\nnpm install -g mcp-gateway\n```"],
  ])("flags %s", (_name, markdown) => {
    expect(problems(markdown)).not.toEqual([]);
  });

  it.each([
    ["npx of this package", `\`npx -y ${pkg.name} stdio --config /abs/mcp.config.json\``],
    ["npx of a checkout", "```sh\nnpx -y /abs/path/to/checkout stdio\n```"],
    ["the bin", "`mcp-gateway serve --port 4000`"],
    ["node and the bin file, under the inspector", "```sh\nnpx -y @modelcontextprotocol/inspector --cli node bin/mcp-gateway.js stdio --method tools/list\n```"],
    ["an MCP server through npx", '```jsonc\n{ "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] } }\n```'],
    ["the HTTP bridge", "`npx -y mcp-remote http://127.0.0.1:4000/mcp`"],
  ])("accepts %s", (_name, markdown) => {
    expect(problems(markdown)).toEqual([]);
  });
});
