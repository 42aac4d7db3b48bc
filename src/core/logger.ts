/**
 * Structured JSON logs (pino) on stderr — stdout belongs to the MCP stdio transport.
 * Secrets are redacted by path (auth headers) and by value (every configured secret).
 */
import { pino, type DestinationStream, type Logger } from "pino";

export type { Logger };

const redactPaths = [
  "authorization",
  "*.authorization",
  "*.*.authorization",
  "headers.authorization",
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  "apiKey",
  "*.apiKey",
  'headers["api-key"]',
  '*.headers["api-key"]',
];

export interface LoggerOptions {
  level?: string;
  /** Secret values (API keys, tokens) that must never appear in a log line. */
  secrets?: readonly string[];
  /** Where to write; stderr by default. */
  destination?: DestinationStream;
}

/** Replaces every occurrence of the secrets (4+ characters) with [REDACTED]. */
export function scrubber(secrets: readonly string[]): (text: string) => string {
  const list = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  return (text) => list.reduce((out, secret) => (out.includes(secret) ? out.split(secret).join("[REDACTED]") : out), text);
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const secrets = options.secrets ?? [];
  const scrub = scrubber(secrets);
  // Asynchronous writes to stderr (sonic-boom): lines written while a write is in flight are
  // coalesced, so a log line per request does not cost a blocking syscall each.
  const destination = options.destination ?? pino.destination({ dest: 2, sync: false });
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      redact: { paths: redactPaths, censor: "[REDACTED]" },
      base: { service: "mcp-gateway" },
      timestamp: pino.stdTimeFunctions.isoTime,
      ...(secrets.some((s) => s.length >= 4) ? { hooks: { streamWrite: scrub } } : {}),
    },
    destination,
  );
}

/** A logger that drops everything (library use and tests). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
