/**
 * Structured JSON logs (pino) on stderr — stdout belongs to the MCP stdio transport.
 * Secrets are redacted by key (auth headers, API keys: log-redact.ts) and by value (every
 * configured secret, on the serialized line).
 */
import { pino, type DestinationStream, type Logger } from "pino";
import { batchedDestination } from "./log-destination.ts";
import { redactSecretKeys } from "./log-redact.ts";
import { currentRequestId } from "./request-context.ts";

export type { Logger };

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
  // One write per turn of the event loop, and none that can hang the exit (log-destination.ts).
  const destination = options.destination ?? batchedDestination(2);
  return pino(
    {
      level: options.level ?? process.env.LOG_LEVEL ?? "info",
      formatters: { log: redactSecretKeys },
      base: { service: "mcp-gateway" },
      // Every line written for a request carries its id (a field the line sets itself wins).
      mixin: requestIdField,
      mixinMergeStrategy: mergeRequestId,
      timestamp: isoTime,
      ...(secrets.some((s) => s.length >= 4) ? { hooks: { streamWrite: scrub } } : {}),
    },
    destination,
  );
}

/** The mixin's answer outside a request (at info level, every line): never written to. */
const NO_FIELDS: { requestId?: string } = {};

function requestIdField(): { requestId?: string } {
  const requestId = currentRequestId();
  return requestId === undefined ? NO_FIELDS : { requestId };
}

/** pino's default merge (the line's own fields over the mixin's), without a copy when the mixin adds nothing. */
function mergeRequestId(line: object, fields: object): object {
  return fields === NO_FIELDS ? line : Object.assign(fields, line);
}

let lastMs = Number.NaN;
let lastTime = "";
let lastSecond = Number.NaN;
/** `,"time":"2026-11-25T03:25:00.` for the second being written. */
let secondPrefix = "";

/**
 * pino's isoTime (`,"time":"2026-11-25T03:25:00.123Z"`), made once per millisecond, and its
 * date and time of day once per second: a Date's ISO string costs about 0.7 µs on Node 20, the
 * milliseconds put after the second's prefix 0.05 µs, and a busy gateway starts a new
 * millisecond with nearly every request it logs.
 */
export function isoTime(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    const ms = now % 1000;
    const second = now - ms;
    if (second !== lastSecond) {
      lastSecond = second;
      secondPrefix = `,"time":"${new Date(second).toISOString().slice(0, -4)}`;
    }
    lastTime = `${secondPrefix}${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z"`;
  }
  return lastTime;
}

/** A logger that drops everything (library use and tests). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
