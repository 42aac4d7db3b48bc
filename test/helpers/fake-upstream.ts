/**
 * A tiny local HTTP server that plays a provider upstream in tests. It speaks real HTTP (the
 * official SDKs talk to it exactly as to the provider), records every request, and answers with
 * whatever the test scripts: JSON bodies, raw SSE bytes, errors, or a connection cut mid-way.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
  rawBody: string;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface FakeUpstream {
  url: string;
  requests: RecordedRequest[];
  /** Replace the handler (e.g. per test). */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

export async function startFakeUpstream(handler?: Handler): Promise<FakeUpstream> {
  let current: Handler = handler ?? ((_req, res) => sendJson(res, 500, { error: "no handler" }));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString("utf8");
    let body: unknown = undefined;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = rawBody;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body,
      rawBody,
    };
    requests.push(recorded);
    try {
      await current(recorded, res);
    } catch (error) {
      if (!res.headersSent) sendJson(res, 500, { error: String(error) });
      else res.destroy();
    }
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

/** Writes a complete SSE body (already framed) and ends the response. */
export function sendSse(res: ServerResponse, body: string, status = 200): void {
  res.writeHead(status, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.end(body);
}

const fixturesDir = join(fileURLToPath(new URL(".", import.meta.url)), "..", "fixtures", "providers");

export function fixturePath(relative: string): string {
  return join(fixturesDir, relative);
}

export function readFixture(relative: string): string {
  return readFileSync(fixturePath(relative), "utf8");
}

export function readJsonFixture<T = any>(relative: string): T {
  return JSON.parse(readFixture(relative)) as T;
}

/** The JSON payload lines of a `*.chunks.txt` fixture (empty lines skipped). */
export function chunkLines(relative: string): string[] {
  return readFixture(relative)
    .split("\n")
    .filter((line) => line.trim() !== "");
}

/** Frames `*.chunks.txt` payload lines as an OpenAI chat SSE body ending in `[DONE]`. */
export function openAiSseFromChunks(lines: string[]): string {
  return lines.map((line) => `data: ${line}\n\n`).join("") + "data: [DONE]\n\n";
}

/** Frames `*.chunks.txt` payload lines as an Anthropic SSE body (`event:` line from each payload's type). */
export function anthropicSseFromChunks(lines: string[]): string {
  return lines
    .map((line) => {
      const type = (JSON.parse(line) as { type: string }).type;
      return `event: ${type}\ndata: ${line}\n\n`;
    })
    .join("");
}
