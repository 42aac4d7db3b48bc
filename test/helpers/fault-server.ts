/**
 * A small stdio MCP server that misbehaves on request, to test the gateway's MCP client side
 * against a real SDK server (McpServer + StdioServerTransport) in a real child process.
 *
 * Run: `node --import tsx test/helpers/fault-server.ts` (see `faultServerCommand`).
 *
 * Environment:
 * - FAULT_LOG: a file to which the server appends one line per event ("call <tool>",
 *   "list <cursor>", "slow-started <id>", "cancelled <id> <reason>", "sigterm-ignored", ...),
 *   written synchronously so tests can poll it.
 * - FAULT_PAGE_SIZE: tools/list page size (default 4): McpServer does not paginate, so the
 *   tools/list handler is replaced by one that returns pages with `nextCursor`.
 * - FAULT_FILLERS: how many extra `filler_NN` tools to register (default 12), to get many pages.
 * - FAULT_STUBBORN=1: ignore stdin closing and SIGTERM (only SIGKILL ends it).
 *
 * Tools: echo, crash, slow, add_tool, fail, image, media, progress, structured, filler_NN.
 */
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { ListToolsRequestSchema, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

const logFile = process.env.FAULT_LOG;
const pageSize = Number(process.env.FAULT_PAGE_SIZE ?? 4);
const fillers = Number(process.env.FAULT_FILLERS ?? 12);
const stubborn = process.env.FAULT_STUBBORN === "1";

function log(line: string): void {
  if (logFile) appendFileSync(logFile, `${line}\n`);
  process.stderr.write(`[fault-server] ${line}\n`);
}

// A 1x1 transparent PNG.
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";
// A few bytes standing in for audio.
const WAV_BYTES = Buffer.from("RIFF0000WAVEfmt ").toString("base64");

const server = new McpServer({ name: "fault-server", version: "1.0.0" });

server.registerTool("echo", { description: "Echoes text", inputSchema: { text: z.string() } }, async ({ text }) => {
  log(`call echo ${text}`);
  return { content: [{ type: "text", text: `echo: ${text}` }] };
});

server.registerTool("crash", { description: "Exits the process in the middle of the call" }, async () => {
  log("call crash");
  process.stderr.write("fatal: crashing on purpose\n", () => process.exit(1));
  return new Promise<never>(() => undefined);
});

server.registerTool("slow", { description: "Never answers; records cancellation" }, async (extra) => {
  log(`call slow`);
  log(`slow-started ${String(extra.requestId)}`);
  await new Promise<void>((resolve) => {
    extra.signal.addEventListener("abort", () => {
      log(`cancelled ${String(extra.requestId)} ${String(extra.signal.reason)}`);
      resolve();
    });
  });
  return { content: [{ type: "text", text: "cancelled" }] };
});

server.registerTool(
  "add_tool",
  { description: "Registers a new tool (sends notifications/tools/list_changed)", inputSchema: { name: z.string() } },
  async ({ name }) => {
    log(`call add_tool ${name}`);
    server.registerTool(name, { description: `Added at run time: ${name}` }, async () => {
      log(`call ${name}`);
      return { content: [{ type: "text", text: `${name} works` }] };
    });
    return { content: [{ type: "text", text: `added ${name}` }] };
  },
);

server.registerTool("fail", { description: "Returns an error result" }, async () => {
  log("call fail");
  return { isError: true, content: [{ type: "text", text: "it failed on purpose" }] };
});

server.registerTool("image", { description: "Returns an image" }, async () => {
  log("call image");
  return { content: [{ type: "image", data: PNG_1X1, mimeType: "image/png" }] };
});

server.registerTool("media", { description: "Returns audio, an embedded resource and a resource link" }, async () => {
  log("call media");
  return {
    content: [
      { type: "audio", data: WAV_BYTES, mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: "some notes" } },
      { type: "resource", resource: { uri: "file:///blob.bin", mimeType: "application/octet-stream", blob: WAV_BYTES } },
      { type: "resource_link", uri: "file:///big.csv", name: "big.csv", mimeType: "text/csv", description: "a big file" },
    ],
  };
});

server.registerTool(
  "progress",
  { description: "Sends progress notifications, then answers", inputSchema: { steps: z.number().int().min(1) } },
  async ({ steps }, extra) => {
    log("call progress");
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      for (let i = 1; i <= steps; i++) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
      }
    }
    return { content: [{ type: "text", text: `done in ${steps} steps` }] };
  },
);

server.registerTool(
  "structured",
  {
    description: "Returns structured content matching its output schema (or, with wrong: true, not matching it)",
    inputSchema: { city: z.string(), wrong: z.boolean().optional() },
    outputSchema: { city: z.string(), temperature: z.number() },
  },
  async ({ city, wrong }) => {
    log("call structured");
    const data = { city, temperature: wrong ? "warm" : 21.5 };
    return { content: [{ type: "text", text: JSON.stringify(data) }], structuredContent: data };
  },
);

for (let i = 0; i < fillers; i++) {
  const name = `filler_${String(i).padStart(2, "0")}`;
  server.registerTool(name, { description: `Filler tool ${i}` }, async () => ({ content: [{ type: "text", text: name }] }));
}

// McpServer lists every tool in one page; replace its tools/list handler by one that pages
// through the same list (reusing McpServer's own handler, so the definitions are identical).
type Handler = (request: unknown, extra: unknown) => Promise<ListToolsResult>;
const handlers = (server.server as unknown as { _requestHandlers: Map<string, Handler> })._requestHandlers;
const listAll = handlers.get("tools/list");
if (!listAll) throw new Error("McpServer did not install a tools/list handler");
server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
  const cursor = request.params?.cursor;
  log(`list ${cursor ?? "-"}`);
  const all = (await listAll(request, extra)).tools;
  const start = cursor === undefined ? 0 : Number(cursor);
  const end = start + pageSize;
  return { tools: all.slice(start, end), ...(end < all.length ? { nextCursor: String(end) } : {}) };
});

if (stubborn) {
  process.on("SIGTERM", () => log("sigterm-ignored"));
  process.stdin.on("end", () => log("stdin-closed-ignored"));
  // Keeps the process alive once stdin is closed.
  setInterval(() => undefined, 1 << 30);
}

await server.connect(new StdioServerTransport());
log(`ready ${process.pid}`);
