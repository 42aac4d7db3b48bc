import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

export interface CliArgs {
  command: string;
  config?: string;
  host?: string;
  port?: number;
  /** `serve --workers N`: processes sharing the port (1: this process serves, as without it). */
  workers?: number;
  format?: string;
  allowUnauthenticated: boolean;
  help: boolean;
  version: boolean;
}

interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** What the value stands for in the help (string options). */
  value?: string;
  /** The commands that take it; none: every command (and none). */
  commands: readonly string[];
  help: string;
}

/** Every option, once: what parseArgs accepts, what the help lists, and which commands take it. */
export const OPTIONS: Record<string, OptionSpec> = {
  config: { type: "string", short: "c", value: "PATH", commands: ["serve", "stdio", "tools", "check"], help: "the config file (else MCP_GATEWAY_CONFIG, else ./mcp.config.json)" },
  host: { type: "string", value: "H", commands: ["serve"], help: "listen address (default gateway.host, else 127.0.0.1)" },
  port: { type: "string", short: "p", value: "N", commands: ["serve"], help: "listen port (default gateway.port, else 4000; 0: a free one)" },
  workers: { type: "string", short: "w", value: "N", commands: ["serve"], help: "processes sharing the port (default 1; >1 needs a Redis store)" },
  "allow-unauthenticated": { type: "boolean", commands: ["serve"], help: "listen on a non-loopback host without gateway.apiKeys" },
  format: { type: "string", short: "f", value: "F", commands: ["tools"], help: "openai (default), openai-strict, anthropic or gemini" },
  help: { type: "boolean", short: "h", commands: [], help: "this help; `mcp-gateway <command> --help` for one command's" },
  version: { type: "boolean", short: "v", commands: [], help: "print the version" },
};

type OptionName = string;

/** Upper bound of `--workers`: more processes than this on one machine is a typo, not a deployment. */
export const MAX_WORKERS = 256;

export const COMMANDS: Record<string, { summary: string; description: string }> = {
  serve: {
    summary: "the HTTP server (/v1/chat/completions, /v1/messages, /v1/responses, /mcp, /health)",
    description:
      "The HTTP server: /v1/chat/completions, /v1/messages, /v1/responses, /v1/models, /mcp, /health.\n" +
      "Refuses a non-loopback host without gateway.apiKeys unless --allow-unauthenticated.\n" +
      "--workers N: N processes share the port, each a whole gateway, restarted if one dies\n" +
      "(the state they share must be in Redis: gateway.store).\n" +
      "SIGTERM/SIGINT: stop accepting, finish in-flight requests (at most 10 s), close the MCP\n" +
      "servers and exit; none is restarted once shutdown has begun.",
  },
  stdio: {
    summary: "the gateway as an MCP server on stdin/stdout (logs on stderr)",
    description: "The gateway as an MCP server on stdin/stdout; logs go to stderr only.",
  },
  tools: {
    summary: "print the aggregated tools as a provider receives them (JSON)",
    description: "Prints the aggregated MCP tools as JSON, as that provider receives them; what schema\nnormalization changed goes to stderr.",
  },
  check: {
    summary: "validate the config, connect every MCP server and provider, print a table",
    description: "Validates the config, connects every MCP server and provider and prints a table;\nexits non-zero on any failure.",
  },
};

/** `-c, --config PATH` */
function optionLabel(name: OptionName): string {
  const option = OPTIONS[name]!;
  return `${option.short ? `-${option.short}, ` : "    "}--${name}${option.value ? ` ${option.value}` : ""}`;
}

/** The options' lines of a help; the general one says which commands take an option. */
function optionLines(names: readonly OptionName[], general: boolean): string {
  const width = Math.max(...names.map((n) => optionLabel(n).length)) + 2;
  const everyCommand = Object.keys(COMMANDS);
  return names
    .map((n) => {
      const { commands, help } = OPTIONS[n]!;
      const only = general && commands.length > 0 && commands.length < everyCommand.length ? `${commands.join(", ")}: ` : "";
      const text = !general && n === "help" ? "this help" : help;
      return `  ${optionLabel(n).padEnd(width)}${only}${text}`;
    })
    .join("\n");
}

const OPTION_NAMES = Object.keys(OPTIONS);
const takesOption = (command: string, name: OptionName) => OPTIONS[name]!.commands.length === 0 || OPTIONS[name]!.commands.includes(command);

/** Help lines fit this many columns. */
const HELP_WIDTH = 100;

/** `Usage: mcp-gateway serve [--config PATH] …`, wrapped under the first option past 100 columns. */
function synopsis(command: string): string {
  const options = OPTION_NAMES.filter((n) => OPTIONS[n]!.commands.includes(command)).map((n) => `[--${n}${OPTIONS[n]!.value ? ` ${OPTIONS[n]!.value}` : ""}]`);
  const head = `Usage: mcp-gateway ${command}`;
  const lines: string[] = [];
  let line = head;
  for (const option of options) {
    if (line !== head && line.length + 1 + option.length > HELP_WIDTH) {
      lines.push(line);
      line = `${" ".repeat(head.length)} ${option}`;
    } else {
      line += ` ${option}`;
    }
  }
  lines.push(line);
  return lines.join("\n");
}

export const USAGE = `Usage: mcp-gateway <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(7)}${c.summary}`)
  .join("\n")}

Options:
${optionLines(OPTION_NAMES, true)}

A .env file in the current folder is loaded first (variables already set win).`;

/** The help of one command: `mcp-gateway serve --help`. */
export function commandUsage(command: string): string {
  const names = OPTION_NAMES.filter((n) => takesOption(command, n));
  return `${synopsis(command)}\n\n${COMMANDS[command]!.description}\n\nOptions:\n${optionLines(names, false)}`;
}

/** This package's version, from its package.json (two folders up from src/cli and dist/cli alike). */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** A command line that cannot be run as given; `command` when it is known (for its help). */
export class UsageError extends Error {
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.name = "UsageError";
    this.command = command;
  }
}

export function parseCli(argv: string[]): CliArgs {
  // The command, when it comes first, names the help to show with a usage error.
  const named = argv[0] !== undefined && argv[0] in COMMANDS ? argv[0] : undefined;
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: Object.fromEntries(OPTION_NAMES.map((n) => [n, { type: OPTIONS[n]!.type, ...(OPTIONS[n]!.short ? { short: OPTIONS[n]!.short } : {}) }])),
    });
  } catch (error) {
    throw new UsageError((error as Error).message, named);
  }
  const { values, positionals } = parsed;
  let command = positionals[0] ?? "help";
  // `mcp-gateway help serve` is `mcp-gateway serve --help`.
  const helpFor = command === "help" && positionals[1] !== undefined ? positionals[1] : undefined;
  if (helpFor !== undefined) {
    if (!(helpFor in COMMANDS)) throw new UsageError(`unknown command "${helpFor}"`);
    command = helpFor;
  } else if (positionals.length > 1) {
    throw new UsageError(`unexpected argument "${positionals[1]}"`, command in COMMANDS ? command : undefined);
  }
  if (command in COMMANDS) {
    // An option another command takes is a mistake here (`tools --port 80`), not silently ignored.
    for (const name of OPTION_NAMES) {
      if (values[name] !== undefined && !takesOption(command, name)) throw new UsageError(`--${name} is not an option of "${command}"`, command);
    }
  }
  const text = (name: OptionName): string | undefined => (typeof values[name] === "string" ? values[name] : undefined);
  const portText = text("port");
  let port: number | undefined;
  if (portText !== undefined) {
    // Digits only: Number() would also take "1e3" or "0x10".
    port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: expected a port number 0-65535, got "${portText}"`, named);
  }
  const workersText = text("workers");
  let workers: number | undefined;
  if (workersText !== undefined) {
    workers = /^\d{1,3}$/.test(workersText) ? Number(workersText) : Number.NaN;
    if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) throw new UsageError(`--workers: expected a number of processes 1-${MAX_WORKERS}, got "${workersText}"`, named);
  }
  const config = text("config");
  const host = text("host");
  const format = text("format");
  return {
    command,
    ...(config === undefined ? {} : { config }),
    ...(host === undefined ? {} : { host }),
    ...(port === undefined ? {} : { port }),
    ...(workers === undefined ? {} : { workers }),
    ...(format === undefined ? {} : { format }),
    allowUnauthenticated: values["allow-unauthenticated"] === true,
    help: values.help === true || helpFor !== undefined,
    version: values.version === true,
  };
}
