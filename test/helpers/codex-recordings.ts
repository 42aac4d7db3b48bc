/**
 * The recorded Codex CLI traffic (test/fixtures/clients/codex, see the README there): each
 * scenario's `POST /v1/responses` requests, in order, with the SSE answer Codex accepted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const recordingsDir = join(fileURLToPath(new URL(".", import.meta.url)), "..", "fixtures", "clients", "codex");

export const CODEX_SCENARIOS = ["cx-01-glm-4.6-exec", "cx-03-gpt-5.5-apply-patch", "cx-04-mcp-glm-4.6-namespace", "cx-05-mcp-gpt-5.5-tool-search"] as const;
export type CodexScenario = (typeof CODEX_SCENARIOS)[number];

export type Json = any;

export interface CodexCall {
  scenario: CodexScenario;
  seq: number;
  /** Lower-cased, as recorded (`authorization` is `<REDACTED>`). */
  headers: Record<string, string>;
  body: Json;
  /** The SSE bytes the recording fake answered with, which Codex accepted. */
  responseSse: string;
}

export function loadCodexCalls(scenario: CodexScenario): CodexCall[] {
  const dir = join(recordingsDir, scenario);
  const lines = (file: string) =>
    readFileSync(join(dir, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as Json);
  const files = new Map<number, string>(lines("responses.jsonl").map((r) => [r.seq as number, r.file as string]));
  return lines("requests.jsonl")
    .filter((r) => r.method === "POST" && String(r.path).split("?")[0] === "/v1/responses")
    .map((r) => {
      const file = files.get(r.seq);
      if (!file?.endsWith(".sse")) throw new Error(`${scenario} #${r.seq}: no recorded SSE answer`);
      return { scenario, seq: r.seq, headers: r.headers, body: r.body, responseSse: readFileSync(join(dir, file), "utf8") };
    });
}

/** The headers Codex sent, as a client would send them again (transport headers left out, a dummy key). */
export function codexReplayHeaders(call: CodexCall, extra: Record<string, string> = {}): Record<string, string> {
  const skip = new Set(["host", "content-length", "connection", "accept-encoding", "authorization", "transfer-encoding"]);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) if (!skip.has(name)) headers[name] = value;
  return { ...headers, authorization: "Bearer codex-dummy-key", ...extra };
}
