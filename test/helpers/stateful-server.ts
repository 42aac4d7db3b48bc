/**
 * A small stdio MCP server with per-session state — resource subscriptions and a logging level —
 * that records every change of it, to test that the gateway re-applies that state when the
 * server restarts. Written with the SDK's low-level Server, so that exactly these handlers run.
 *
 * Run: `node --import tsx test/helpers/stateful-server.ts` (see `statefulServerEntry`).
 *
 * Environment:
 * - STATE_LOG: a file to which the server appends one line per event, prefixed with its pid
 *   ("<pid> ready", "<pid> subscribe <uri>", "<pid> unsubscribe <uri>", "<pid> setLevel <level>",
 *   "<pid> updated <uri>", "<pid> not-subscribed <uri>", "<pid> log-sent <level>",
 *   "<pid> log-filtered <level>"), written synchronously so tests can poll it.
 *
 * Resources: `state://watched`, `state://other`, and `state://process/<pid>` (so that every
 * process lists something new). Prompt: `greeting`. Tools:
 * - `touch { uri }`: sends notifications/resources/updated for `uri` if this process has a
 *   subscription to it (as a real server would), and says which.
 * - `emit_log { level }`: sends a log message at `level` unless it is below the level set with
 *   logging/setLevel, and says which.
 */
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type LoggingLevel,
} from "@modelcontextprotocol/sdk/types.js";

const logFile = process.env.STATE_LOG;
const LEVELS = LoggingLevelSchema.options;

function log(line: string): void {
  if (logFile) appendFileSync(logFile, `${process.pid} ${line}\n`);
  process.stderr.write(`[stateful-server] ${line}\n`);
}

const subscriptions = new Set<string>();
let level: LoggingLevel | undefined;

const server = new Server(
  { name: "stateful-server", version: "1.0.0" },
  { capabilities: { tools: {}, resources: { subscribe: true, listChanged: true }, prompts: {}, logging: {} } },
);

const resources = ["state://watched", "state://other", `state://process/${process.pid}`];

server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: resources.map((uri) => ({ uri, name: uri, mimeType: "text/plain" })) }));
server.setRequestHandler(ReadResourceRequestSchema, (request) => ({
  contents: [{ uri: request.params.uri, mimeType: "text/plain", text: `served by ${process.pid}` }],
}));
server.setRequestHandler(SubscribeRequestSchema, (request) => {
  log(`subscribe ${request.params.uri}`);
  subscriptions.add(request.params.uri);
  return {};
});
server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
  log(`unsubscribe ${request.params.uri}`);
  subscriptions.delete(request.params.uri);
  return {};
});
server.setRequestHandler(SetLevelRequestSchema, (request) => {
  log(`setLevel ${request.params.level}`);
  level = request.params.level;
  return {};
});

server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [{ name: "greeting", description: "Says hello" }] }));
server.setRequestHandler(GetPromptRequestSchema, () => ({ messages: [{ role: "user", content: { type: "text", text: "hello" } }] }));

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: "touch", description: "Sends resources/updated for a subscribed URI", inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] } },
    { name: "emit_log", description: "Sends a log message at a level", inputSchema: { type: "object", properties: { level: { type: "string", enum: [...LEVELS] } }, required: ["level"] } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = (request.params.arguments ?? {}) as { uri?: string; level?: LoggingLevel };
  if (request.params.name === "touch" && typeof args.uri === "string") {
    if (!subscriptions.has(args.uri)) {
      log(`not-subscribed ${args.uri}`);
      return { content: [{ type: "text", text: `not subscribed: ${args.uri}` }] };
    }
    log(`updated ${args.uri}`);
    await server.sendResourceUpdated({ uri: args.uri });
    return { content: [{ type: "text", text: `updated: ${args.uri}` }] };
  }
  if (request.params.name === "emit_log" && args.level !== undefined && LEVELS.includes(args.level)) {
    if (level !== undefined && LEVELS.indexOf(args.level) < LEVELS.indexOf(level)) {
      log(`log-filtered ${args.level}`);
      return { content: [{ type: "text", text: `filtered: ${args.level}` }] };
    }
    log(`log-sent ${args.level}`);
    await server.sendLoggingMessage({ level: args.level, data: `a ${args.level} message` });
    return { content: [{ type: "text", text: `sent: ${args.level}` }] };
  }
  return { isError: true, content: [{ type: "text", text: `bad call: ${request.params.name}` }] };
});

await server.connect(new StdioServerTransport());
log("ready");
