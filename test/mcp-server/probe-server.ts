/**
 * A small stdio MCP server for the isolation tests. Besides its tools, it takes commands from the
 * test over a control connection (TCP to 127.0.0.1:$PROBE_CONTROL_PORT, one JSON object per
 * line), so it can talk to the gateway on its own, outside any client request, exactly when the
 * test says so — the way server-filesystem asks for roots after roots/list_changed, or a server
 * logs in the background.
 *
 *   node --import tsx probe-server.ts
 *
 * Tools: `roots_changes` (how many notifications/roots/list_changed arrived), `ask_roots`
 * (roots/list while serving the call), `block` (reports progress once, then waits for the
 * "release" command).
 * Commands: `{ id, op: "roots" | "sample" | "elicit" | "log" | "release" }`, answered with
 * `{ id, ok }` or `{ id, error }`. "log" sends a log message, then (as a barrier the test can
 * wait for) notifications/resources/list_changed.
 */
import { connect } from "node:net";
import { createInterface } from "node:readline";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  McpError,
  RootsListChangedNotificationSchema,
  type CallToolResult,
} from "@modelcontextprotocol/sdk/types.js";

const noArgs = { type: "object", properties: {} } as const;

const server = new Server(
  { name: "probe", version: "1.0.0" },
  { capabilities: { tools: {}, resources: { listChanged: true }, logging: {} } },
);

let rootsChanges = 0;
let releaseBlocked: (() => void)[] = [];

server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
  rootsChanges++;
});

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: "roots_changes", description: "How many notifications/roots/list_changed arrived", inputSchema: noArgs },
    { name: "ask_roots", description: "Asks for roots/list while serving this call", inputSchema: noArgs },
    { name: "block", description: "Reports progress once, then waits for the test's release command", inputSchema: noArgs },
  ],
}));

server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));

server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
  switch (request.params.name) {
    case "roots_changes":
      return { content: [{ type: "text", text: String(rootsChanges) }] };
    case "ask_roots":
      try {
        const result = await extra.sendRequest({ method: "roots/list" }, ListRootsResultSchema);
        return { content: [{ type: "text", text: JSON.stringify(result.roots) }] };
      } catch (error) {
        return { content: [{ type: "text", text: `roots/list failed: ${error instanceof Error ? error.message : String(error)}` }], isError: true };
      }
    case "block": {
      const token = request.params._meta?.progressToken;
      const released = new Promise<void>((resolve) => releaseBlocked.push(resolve));
      if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: 1, total: 2 } });
      await released;
      return { content: [{ type: "text", text: "released" }] };
    }
    default:
      throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
  }
});

/** Runs a control command; what the gateway answered (or the error it sent) goes back to the test. */
async function run(op: string): Promise<unknown> {
  switch (op) {
    case "roots":
      return (await server.listRoots()).roots;
    case "sample":
      return server.createMessage({ messages: [{ role: "user", content: { type: "text", text: "background question" } }], maxTokens: 10 }).then((r) => CreateMessageResultSchema.parse(r).content);
    case "elicit":
      return ElicitResultSchema.parse(await server.elicitInput({ message: "background question", requestedSchema: { type: "object", properties: { name: { type: "string" } } } })).action;
    case "log":
      await server.sendLoggingMessage({ level: "error", logger: "probe", data: "background log message" });
      await server.notification({ method: "notifications/resources/list_changed" });
      return "sent";
    case "release": {
      const waiting = releaseBlocked;
      releaseBlocked = [];
      for (const resolve of waiting) resolve();
      return waiting.length;
    }
    default:
      throw new Error(`unknown op ${op}`);
  }
}

await server.connect(new StdioServerTransport());

const port = Number(process.env.PROBE_CONTROL_PORT);
if (port) {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => undefined);
  createInterface({ input: socket }).on("line", (line) => {
    const { id, op } = JSON.parse(line) as { id: number; op: string };
    run(op).then(
      (ok) => socket.write(`${JSON.stringify({ id, ok })}\n`),
      (error: unknown) => socket.write(`${JSON.stringify({ id, error: error instanceof Error ? error.message : String(error) })}\n`),
    );
  });
}
