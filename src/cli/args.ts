import { parseArgs } from "node:util";

export interface CliArgs {
  command: string;
  config?: string;
  host?: string;
  port?: number;
  format?: string;
  allowUnauthenticated: boolean;
  help: boolean;
}

export const USAGE = `Usage: mcp-gateway <command> [options]

Commands:
  serve   [--config PATH] [--host H] [--port N]   HTTP server: /v1/chat/completions, /v1/models, /mcp, /health
  stdio   [--config PATH]                         the gateway as an MCP server on stdin/stdout
  tools   [--config PATH] [--format openai|openai-strict|anthropic|gemini]
                                                  print the aggregated tools as that provider receives them
  check   [--config PATH]                         validate the config, connect every MCP server and provider

Config path: --config, else MCP_GATEWAY_CONFIG, else ./mcp.config.json`;

export function parseCli(argv: string[]): CliArgs {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      config: { type: "string", short: "c" },
      host: { type: "string" },
      port: { type: "string", short: "p" },
      format: { type: "string", short: "f" },
      "allow-unauthenticated": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  let port: number | undefined;
  if (values.port !== undefined) {
    // Digits only: Number() would also take "1e3" or "0x10".
    port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : Number.NaN;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: expected a port number 0-65535, got "${values.port}"`);
  }
  return {
    command: positionals[0] ?? "help",
    ...(values.config === undefined ? {} : { config: values.config }),
    ...(values.host === undefined ? {} : { host: values.host }),
    ...(port === undefined ? {} : { port }),
    ...(values.format === undefined ? {} : { format: values.format }),
    allowUnauthenticated: values["allow-unauthenticated"] === true,
    help: values.help === true,
  };
}
