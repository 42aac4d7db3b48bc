/**
 * An MCP server implementing what @modelcontextprotocol/conformance asks of a server under test
 * (its README and scenario descriptions: the `test_*` tools, the `test://` resources and
 * template, the `test_*` prompts, completion, logging, subscriptions, SSE polling), plus a few
 * `probe_*` tools the gateway's own tests use to observe what reaches an upstream server
 * (cancellation, roots, list_changed, resource updates).
 *
 *   node --import tsx fixture-server.ts stdio
 *   node --import tsx fixture-server.ts http <port>     (Streamable HTTP on 127.0.0.1:<port>/mcp;
 *                                                        port 0 picks one and reports it on stderr)
 *
 * Written with the SDK's low-level Server so every schema is sent exactly as written.
 */
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type Prompt,
  type Resource,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/** A 1x1 red PNG. */
const RED_PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A valid, silent, 8 kHz mono 16-bit WAV of 8 samples. */
function silentWav(): string {
  const samples = 8;
  const data = samples * 2;
  const b = Buffer.alloc(44 + data);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + data, 4);
  b.write("WAVE", 8);
  b.write("fmt ", 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36);
  b.writeUInt32LE(data, 40);
  return b.toString("base64");
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const noArgs = { type: "object", properties: {} } as const;

/* ---------------- state shared by every session of this process ---------------- */

const extraTools: Tool[] = [];
const extraPrompts: Prompt[] = [];
const extraResources: Resource[] = [];
const servers = new Set<Server>();
const subscriptions = new Map<string, Set<Server>>();
let cancelled: { promise: Promise<string>; resolve: (reason: string) => void } = deferred();
const NOT_CANCELLED_YET = "";
let rootsChangedWaiters: (() => void)[] = [];

function deferred(): { promise: Promise<string>; resolve: (reason: string) => void } {
  let resolve!: (reason: string) => void;
  const promise = new Promise<string>((r) => (resolve = r));
  return { promise, resolve };
}

function broadcast(method: string): void {
  for (const server of servers) server.notification({ method }).catch(() => undefined);
}

/* ---------------- tools ---------------- */

const tools: Tool[] = [
  { name: "test_simple_text", description: "Returns simple text content", inputSchema: noArgs },
  { name: "test_image_content", description: "Returns image content", inputSchema: noArgs },
  { name: "test_audio_content", description: "Returns audio content", inputSchema: noArgs },
  { name: "test_embedded_resource", description: "Returns an embedded resource", inputSchema: noArgs },
  { name: "test_multiple_content_types", description: "Returns text, image and resource content", inputSchema: noArgs },
  { name: "test_tool_with_logging", description: "Sends three log messages while running", inputSchema: noArgs },
  { name: "test_error_handling", description: "Always fails with isError", inputSchema: noArgs },
  { name: "test_tool_with_progress", description: "Reports progress 0, 50, 100 of 100", inputSchema: noArgs },
  {
    name: "test_sampling",
    description: "Asks the client for an LLM completion (sampling)",
    inputSchema: { type: "object", properties: { prompt: { type: "string", description: "The prompt to send to the LLM" } }, required: ["prompt"] },
  },
  {
    name: "test_elicitation",
    description: "Asks the user for input (elicitation)",
    inputSchema: { type: "object", properties: { message: { type: "string", description: "The message to show the user" } }, required: ["message"] },
  },
  { name: "test_elicitation_sep1034_defaults", description: "Elicitation with defaults for every primitive type (SEP-1034)", inputSchema: noArgs },
  { name: "test_elicitation_sep1330_enums", description: "Elicitation with the enum schema variants (SEP-1330)", inputSchema: noArgs },
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
      properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
      additionalProperties: false,
    },
  },
  { name: "test_reconnection", description: "Closes its SSE stream mid-call, then answers (SEP-1699 polling)", inputSchema: noArgs },
  {
    name: "probe_structured",
    title: "Structured probe",
    description: "Returns structured content matching its output schema",
    inputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    outputSchema: { type: "object", properties: { doubled: { type: "integer" } }, required: ["doubled"] },
    annotations: { readOnlyHint: true, idempotentHint: true },
    _meta: { "example.com/probe": true },
  },
  { name: "probe_wait_for_cancel", description: "Reports progress once, then waits until the call is cancelled", inputSchema: noArgs },
  { name: "probe_cancelled", description: "Waits until a probe_wait_for_cancel call was cancelled; returns the reason", inputSchema: noArgs },
  { name: "probe_roots", description: "Asks the client for its roots", inputSchema: noArgs },
  {
    name: "probe_sample_on_roots_change",
    description: "Reports progress once, waits for notifications/roots/list_changed, then asks for sampling",
    inputSchema: noArgs,
  },
  {
    name: "probe_log",
    description: "Sends one log message",
    inputSchema: { type: "object", properties: { level: { type: "string" }, data: { type: "string" } }, required: ["level", "data"] },
  },
  {
    name: "probe_add",
    description: "Adds a tool, a prompt or a resource named `name` and sends list_changed",
    inputSchema: { type: "object", properties: { kind: { enum: ["tool", "prompt", "resource"] }, name: { type: "string" } }, required: ["kind", "name"] },
  },
  {
    name: "probe_touch",
    description: "Sends notifications/resources/updated for a URI to its subscribers",
    inputSchema: { type: "object", properties: { uri: { type: "string" } }, required: ["uri"] },
  },
];

type Extra = Parameters<Parameters<Server["setRequestHandler"]>[1]>[1];

async function callTool(server: Server, name: string, args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> {
  const log = (level: "info" | "debug" | "error" | "warning", data: string) =>
    server.notification({ method: "notifications/message", params: { level, logger: "fixture", data } }, { relatedRequestId: extra.requestId });
  const progressToken = extra._meta?.progressToken;
  const progress = (value: number, total: number) =>
    progressToken === undefined
      ? Promise.resolve()
      : server.notification({ method: "notifications/progress", params: { progressToken, progress: value, total } }, { relatedRequestId: extra.requestId });
  switch (name) {
    case "test_simple_text":
      return { content: [{ type: "text", text: "This is a simple text response for testing." }] };
    case "test_image_content":
      return { content: [{ type: "image", data: RED_PIXEL, mimeType: "image/png" }] };
    case "test_audio_content":
      return { content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] };
    case "test_embedded_resource":
      return { content: [{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }] };
    case "test_multiple_content_types":
      return {
        content: [
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: RED_PIXEL, mimeType: "image/png" },
          { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
        ],
      };
    case "test_tool_with_logging":
      await log("info", "Tool execution started");
      await pause(50);
      await log("info", "Tool processing data");
      await pause(50);
      await log("info", "Tool execution completed");
      return { content: [{ type: "text", text: "Tool with logging executed successfully" }] };
    case "test_error_handling":
      return { content: [{ type: "text", text: "This tool intentionally returns an error for testing" }], isError: true };
    case "test_tool_with_progress":
      await progress(0, 100);
      await pause(50);
      await progress(50, 100);
      await pause(50);
      await progress(100, 100);
      return { content: [{ type: "text", text: "Tool with progress executed successfully" }] };
    case "test_sampling": {
      if (!server.getClientCapabilities()?.sampling) return { content: [{ type: "text", text: "The client does not support sampling" }], isError: true };
      const result = await extra.sendRequest(
        { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: String(args.prompt) } }], maxTokens: 100 } },
        CreateMessageResultSchema,
      );
      const text = !Array.isArray(result.content) && result.content.type === "text" ? result.content.text : JSON.stringify(result.content);
      return { content: [{ type: "text", text: `LLM response: ${text}` }] };
    }
    case "test_elicitation": {
      if (!server.getClientCapabilities()?.elicitation) return { content: [{ type: "text", text: "The client does not support elicitation" }], isError: true };
      const result = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: String(args.message),
            requestedSchema: {
              type: "object",
              properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
              required: ["username", "email"],
            },
          },
        },
        ElicitResultSchema,
      );
      return { content: [{ type: "text", text: `User response: action=${result.action}, content=${JSON.stringify(result.content ?? {})}` }] };
    }
    case "test_elicitation_sep1034_defaults": {
      const result = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "Please review the defaults",
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string", default: "John Doe" },
                age: { type: "integer", default: 30 },
                score: { type: "number", default: 95.5 },
                status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
                verified: { type: "boolean", default: true },
              },
            },
          },
        },
        ElicitResultSchema,
      );
      return { content: [{ type: "text", text: `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}` }] };
    }
    case "test_elicitation_sep1330_enums": {
      const result = await extra.sendRequest(
        {
          method: "elicitation/create",
          params: {
            message: "Please choose",
            requestedSchema: {
              type: "object",
              properties: {
                untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
                titledSingle: {
                  type: "string",
                  oneOf: [
                    { const: "value1", title: "First Option" },
                    { const: "value2", title: "Second Option" },
                    { const: "value3", title: "Third Option" },
                  ],
                },
                legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
                untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
                titledMulti: {
                  type: "array",
                  items: {
                    anyOf: [
                      { const: "value1", title: "First Choice" },
                      { const: "value2", title: "Second Choice" },
                      { const: "value3", title: "Third Choice" },
                    ],
                  },
                },
              },
            },
          },
        } as never,
        ElicitResultSchema,
      );
      return { content: [{ type: "text", text: `Elicitation completed: action=${result.action}, content=${JSON.stringify(result.content ?? {})}` }] };
    }
    case "json_schema_2020_12_tool":
      return { content: [{ type: "text", text: `Received: ${JSON.stringify(args)}` }] };
    case "test_reconnection":
      // Over Streamable HTTP with an event store: end the stream; the client resumes via GET.
      extra.closeSSEStream?.();
      await pause(100);
      return { content: [{ type: "text", text: "Reconnection test completed" }] };
    case "probe_structured": {
      const doubled = Number(args.n) * 2;
      return { content: [{ type: "text", text: JSON.stringify({ doubled }) }], structuredContent: { doubled } };
    }
    case "probe_wait_for_cancel": {
      await progress(1, 2);
      const reason = await new Promise<string>((resolve) => {
        if (extra.signal.aborted) resolve(String(extra.signal.reason ?? "aborted"));
        extra.signal.addEventListener("abort", () => resolve(String(extra.signal.reason ?? "aborted")), { once: true });
      });
      cancelled.resolve(reason || "aborted");
      return { content: [{ type: "text", text: "cancelled" }] };
    }
    case "probe_cancelled": {
      const reason = await cancelled.promise;
      cancelled = deferred();
      return { content: [{ type: "text", text: `cancelled: ${reason || NOT_CANCELLED_YET}` }] };
    }
    case "probe_roots": {
      const result = await extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema);
      return { content: [{ type: "text", text: JSON.stringify(result.roots) }] };
    }
    case "probe_sample_on_roots_change": {
      const changed = new Promise<void>((resolve) => rootsChangedWaiters.push(resolve));
      await progress(1, 2);
      await changed;
      const result = await extra.sendRequest(
        { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "who is asking?" } }], maxTokens: 10 } },
        CreateMessageResultSchema,
      );
      const text = !Array.isArray(result.content) && result.content.type === "text" ? result.content.text : "";
      return { content: [{ type: "text", text: `sampled: ${text}` }] };
    }
    case "probe_log":
      await log(args.level as "info", String(args.data));
      return { content: [{ type: "text", text: "logged" }] };
    case "probe_add": {
      const added = String(args.name);
      if (args.kind === "tool") {
        extraTools.push({ name: added, description: `added ${added}`, inputSchema: noArgs });
        broadcast("notifications/tools/list_changed");
      } else if (args.kind === "prompt") {
        extraPrompts.push({ name: added, description: `added ${added}` });
        broadcast("notifications/prompts/list_changed");
      } else {
        extraResources.push({ uri: `test://added/${added}`, name: added, description: `added ${added}`, mimeType: "text/plain" });
        broadcast("notifications/resources/list_changed");
      }
      return { content: [{ type: "text", text: `added ${String(args.kind)} ${added}` }] };
    }
    case "probe_touch": {
      const uri = String(args.uri);
      for (const subscriber of subscriptions.get(uri) ?? []) subscriber.notification({ method: "notifications/resources/updated", params: { uri } }).catch(() => undefined);
      return { content: [{ type: "text", text: `touched ${uri}` }] };
    }
    default:
      if (extraTools.some((t) => t.name === name)) return { content: [{ type: "text", text: `${name} ran` }] };
      throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
  }
}

/* ---------------- resources and prompts ---------------- */

const resources: Resource[] = [
  { uri: "test://static-text", name: "static-text", description: "A static text resource", mimeType: "text/plain" },
  { uri: "test://static-binary", name: "static-binary", description: "A static binary resource (PNG)", mimeType: "image/png" },
  { uri: "test://watched-resource", name: "watched-resource", description: "A resource that can be subscribed to", mimeType: "text/plain" },
];

const prompts: Prompt[] = [
  { name: "test_simple_prompt", description: "A simple prompt without arguments" },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt embedding a resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
  },
  { name: "test_prompt_with_image", description: "A prompt with an image" },
];

function readResource(uri: string) {
  if (uri === "test://static-text") return { contents: [{ uri, mimeType: "text/plain", text: "This is the content of the static text resource." }] };
  if (uri === "test://static-binary") return { contents: [{ uri, mimeType: "image/png", blob: RED_PIXEL }] };
  if (uri === "test://watched-resource") return { contents: [{ uri, mimeType: "text/plain", text: "Watched resource content." }] };
  const template = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (template) {
    const id = decodeURIComponent(template[1]!);
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }] };
  }
  const added = extraResources.find((r) => r.uri === uri);
  if (added) return { contents: [{ uri, mimeType: "text/plain", text: `content of ${added.name}` }] };
  throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
}

function getPrompt(name: string, args: Record<string, string>) {
  switch (name) {
    case "test_simple_prompt":
      return { messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }] };
    case "test_prompt_with_arguments":
      return { messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'` } }] };
    case "test_prompt_with_embedded_resource":
      return {
        messages: [
          { role: "user", content: { type: "resource", resource: { uri: args.resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } } },
          { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
        ],
      };
    case "test_prompt_with_image":
      return {
        messages: [
          { role: "user", content: { type: "image", data: RED_PIXEL, mimeType: "image/png" } },
          { role: "user", content: { type: "text", text: "Please analyze the image above." } },
        ],
      };
    default:
      if (extraPrompts.some((p) => p.name === name)) return { messages: [{ role: "user", content: { type: "text", text: `prompt ${name}` } }] };
      throw new McpError(ErrorCode.InvalidParams, `Prompt ${name} not found`);
  }
}

const CITIES = ["paris", "park", "party", "testing", "tested"];

/* ---------------- the server ---------------- */

function createFixtureServer(): Server {
  const server = new Server(
    { name: "conformance-fixture", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      },
      instructions: "Conformance fixture: test_* tools, test:// resources, test_* prompts.",
    },
  );
  servers.add(server);
  server.onclose = () => {
    servers.delete(server);
    for (const subscribers of subscriptions.values()) subscribers.delete(server);
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    const waiters = rootsChangedWaiters;
    rootsChangedWaiters = [];
    for (const resolve of waiters) resolve();
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [...tools, ...extraTools] }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => callTool(server, request.params.name, request.params.arguments ?? {}, extra));
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [...resources, ...extraResources] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [{ uriTemplate: "test://template/{id}/data", name: "template-data", description: "Data for an id", mimeType: "application/json" }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(request.params.uri));
  server.setRequestHandler(SubscribeRequestSchema, (request) => {
    const set = subscriptions.get(request.params.uri) ?? new Set<Server>();
    set.add(server);
    subscriptions.set(request.params.uri, set);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions.get(request.params.uri)?.delete(server);
    return {};
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...prompts, ...extraPrompts] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(request.params.name, request.params.arguments ?? {}) as never);
  server.setRequestHandler(CompleteRequestSchema, (request) => {
    const { ref, argument } = request.params;
    const pool = ref.type === "ref/prompt" && ref.name === "test_prompt_with_arguments" ? CITIES : ref.type === "ref/resource" ? ["1", "2", "3", "123"] : [];
    const values = pool.filter((v) => v.startsWith(argument.value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

/** Events of every HTTP session, for resumption (SEP-1699 polling). */
class Events implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  private n = 0;
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}|${++this.n}`;
    this.events.set(id, { streamId, message });
    return id;
  }
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId;
  }
  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const streamId = this.events.get(lastEventId)?.streamId ?? "";
    let after = false;
    for (const [id, event] of this.events) {
      if (id === lastEventId) after = true;
      else if (after && event.streamId === streamId && Object.keys(event.message).length > 0) await send(id, event.message);
    }
    return streamId;
  }
}

async function serveHttp(requestedPort: number): Promise<void> {
  let port = requestedPort;
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createHttpServer(async (req, res) => {
    if (!req.url?.startsWith("/mcp")) {
      res.writeHead(404).end();
      return;
    }
    const id = req.headers["mcp-session-id"];
    let transport = typeof id === "string" ? transports.get(id) : undefined;
    if (typeof id === "string" && !transport) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }));
      return;
    }
    if (!transport) {
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        eventStore: new Events(),
        retryInterval: 100,
        enableDnsRebindingProtection: true,
        allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`],
        allowedOrigins: [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`],
        onsessioninitialized: (sessionId) => void transports.set(sessionId, created),
      });
      created.onclose = () => {
        if (created.sessionId) transports.delete(created.sessionId);
      };
      await createFixtureServer().connect(created);
      transport = created;
    }
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(requestedPort, "127.0.0.1", resolve));
  const address = http.address();
  if (address && typeof address === "object") port = address.port;
  process.stderr.write(`CONFORMANCE_LISTENING ${port}\n`);
}

const [mode, port] = process.argv.slice(2);
if (mode === "http") {
  await serveHttp(Number(port));
} else {
  const server = createFixtureServer();
  await server.connect(new StdioServerTransport());
  process.stdin.once("end", () => void server.close().then(() => process.exit(0)));
}
