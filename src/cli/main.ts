#!/usr/bin/env node
/** The `mcp-gateway` command line. */
import { ConfigError } from "../core/config/index.ts";
import { commandUsage, packageVersion, parseCli, UsageError, USAGE } from "./args.ts";
import { checkCommand } from "./commands/check.ts";
import { serveCommand } from "./commands/serve.ts";
import { stdioCommand } from "./commands/stdio.ts";
import { toolsCommand } from "./commands/tools.ts";
import { loadDotEnv } from "./env-file.ts";

const commands: Record<string, (args: ReturnType<typeof parseCli>) => Promise<number>> = {
  serve: serveCommand,
  stdio: stdioCommand,
  tools: toolsCommand,
  check: checkCommand,
};

async function main(argv: string[]): Promise<number> {
  let args: ReturnType<typeof parseCli>;
  try {
    args = parseCli(argv);
  } catch (error) {
    // A usage error (an unknown option, a bad --port) exits 2, like an unknown command.
    const command = error instanceof UsageError ? error.command : undefined;
    process.stderr.write(`mcp-gateway: ${error instanceof Error ? error.message : String(error)}\n\n${command ? commandUsage(command) : USAGE}\n`);
    return 2;
  }
  if (args.version) {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const run = commands[args.command];
  if (args.help || !run) {
    const known = run !== undefined || args.command === "help";
    if (!known) process.stderr.write(`mcp-gateway: unknown command "${args.command}"\n\n`);
    (known ? process.stdout : process.stderr).write(`${run ? commandUsage(args.command) : USAGE}\n`);
    return known ? 0 : 2;
  }
  // Before the config is read: its ${VAR}s may come from .env.
  loadDotEnv();
  return run(args);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : `mcp-gateway: ${error instanceof Error ? error.message : String(error)}`}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
