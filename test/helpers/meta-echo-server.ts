/**
 * A stdio MCP server whose tool `echo_meta` answers with the `_meta` its tools/call request
 * carried (JSON): what an MCP server that traces would read its trace context from. Tool
 * `fail` returns an error result. Run: `node --import tsx test/helpers/meta-echo-server.ts`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "meta-echo", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    { name: "echo_meta", description: "Answers with the request's _meta", inputSchema: { type: "object", properties: { note: { type: "string" } } } },
    { name: "fail", description: "Always fails", inputSchema: { type: "object", properties: {} } },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, (request) => {
  if (request.params.name === "fail") return { content: [{ type: "text", text: "this tool always fails" }], isError: true };
  return { content: [{ type: "text", text: JSON.stringify(request.params._meta ?? {}) }] };
});

await server.connect(new StdioServerTransport());
