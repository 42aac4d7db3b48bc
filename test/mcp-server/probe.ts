/**
 * For the isolation tests: the probe MCP server (./probe-server.ts) as an mcp.config.json entry,
 * the control connection the test drives it with, and a bare /mcp session spoken over raw HTTP
 * (to know for sure when its GET stream is open, which the SDK client does not tell).
 */
import { once } from "node:events";
import { createServer, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ROOT } from "../helpers/mcp-gateway-harness.ts";

export const PROBE_SERVER = join(ROOT, "test", "mcp-server", "probe-server.ts");

export type ProbeOp = "roots" | "sample" | "elicit" | "log" | "release";

export interface ProbeControl {
  port: number;
  /** An mcp.config.json entry running the probe server, connected to this control. */
  server(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Has the probe do `op` on its own (outside any client request); what the gateway answered. */
  command(op: ProbeOp): Promise<{ ok?: unknown; error?: string }>;
  close(): Promise<void>;
}

/** Listens for the probe server's control connection on 127.0.0.1:<free port>. */
export async function startProbeControl(): Promise<ProbeControl> {
  let socket: Socket | undefined;
  let connected!: () => void;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  const pending = new Map<number, (answer: { ok?: unknown; error?: string }) => void>();
  let next = 0;
  const listener = createServer((s) => {
    socket = s;
    s.on("error", () => undefined);
    createInterface({ input: s }).on("line", (line) => {
      const answer = JSON.parse(line) as { id: number; ok?: unknown; error?: string };
      pending.get(answer.id)?.(answer);
      pending.delete(answer.id);
    });
    connected();
  });
  listener.listen(0, "127.0.0.1");
  await once(listener, "listening");
  const port = (listener.address() as { port: number }).port;
  return {
    port,
    server: (extra = {}) => ({
      command: process.execPath,
      args: ["--import", "tsx", PROBE_SERVER],
      cwd: ROOT,
      env: { PROBE_CONTROL_PORT: String(port) },
      // One process per control connection: the gateway's second look at the tools models may
      // use would start another that takes the control over (see mcpServers.<name>.probeModelTools).
      probeModelTools: false,
      ...extra,
    }),
    async command(op) {
      await ready;
      const id = ++next;
      const answer = new Promise<{ ok?: unknown; error?: string }>((resolve) => pending.set(id, resolve));
      socket!.write(`${JSON.stringify({ id, op })}\n`);
      return answer;
    },
    async close() {
      socket?.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

/** The JSON-RPC messages of an SSE body, as they arrive. */
export async function* sseMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<JSONRPCMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data !== "") yield JSON.parse(data) as JSONRPCMessage;
    }
  }
}

export interface RawSession {
  id: string;
  /** Headers of a request in this session (protocol version, session id, auth). */
  headers: Record<string, string>;
  post(message: object): Promise<Response>;
}

/** initialize + notifications/initialized over plain fetch. */
export async function openRawSession(url: URL, headers: Record<string, string> = {}, capabilities: object = {}): Promise<RawSession> {
  const base = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
  const init = await fetch(url, {
    method: "POST",
    headers: base,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: { name: "raw", version: "1" } } }),
  });
  await init.text();
  const id = init.headers.get("mcp-session-id");
  if (init.status !== 200 || !id) throw new Error(`initialize failed: ${init.status}`);
  const session = { ...base, "mcp-session-id": id, "mcp-protocol-version": LATEST_PROTOCOL_VERSION };
  const post = (message: object) => fetch(url, { method: "POST", headers: session, body: JSON.stringify(message) });
  const initialized = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  if (initialized.status !== 202) throw new Error(`notifications/initialized: ${initialized.status}`);
  return { id, headers: session, post };
}
