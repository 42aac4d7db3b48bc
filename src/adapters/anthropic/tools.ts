import type { JsonSchema, ToolDefinition } from "../../core/index.ts";
import { toAnthropic } from "../../core/schema/index.ts";
import type { Tool } from "./wire.ts";

const normalized = new WeakMap<JsonSchema, Tool["input_schema"]>();

/**
 * Every tool's schema as Anthropic takes it (`toAnthropic`: a root `type`, no root
 * `anyOf`/`oneOf`/`allOf`, draft 2020-12), or it refuses the request: "input_schema does not
 * support oneOf, allOf, or anyOf at the top level". The registry already did this for MCP tools;
 * the client's own tools (the request's `tools`) arrive as the client wrote them, for OpenAI,
 * which accepts such schemas. Cached by schema object, so a registry schema is done once.
 */
function inputSchema(schema: JsonSchema): Tool["input_schema"] {
  let wire = normalized.get(schema);
  if (wire === undefined) {
    wire = toAnthropic(schema).schema as Tool["input_schema"];
    normalized.set(schema, wire);
  }
  return wire;
}

/**
 * Tools as Anthropic custom tools. Names are sent as given: sanitizing and the way back to the
 * original name are the registry's job. `strict` is OpenAI's and is not sent (on Anthropic it
 * exists only for some models).
 */
export function toWireTools(tools: ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    input_schema: inputSchema(tool.inputSchema),
    ...(tool.deferLoading ? { defer_loading: true } : {}),
  }));
}

/** Anthropic's own tool search (BM25), which loads `defer_loading` tools when the model looks for them. */
export const TOOL_SEARCH_TOOL = { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" } as const;

/**
 * The gateway's tools with `defer_loading` need a tool search tool beside them (or Anthropic cannot
 * load them): Anthropic's BM25 one is added unless the list (a client's, passed through) already
 * has one. A client's own deferred tools are its business: they add nothing.
 */
export function withToolSearch<T extends { type?: unknown; defer_loading?: unknown }>(tools: T[], gateways: readonly { defer_loading?: unknown }[] = tools): (T | typeof TOOL_SEARCH_TOOL)[] {
  if (!gateways.some((tool) => tool.defer_loading === true)) return tools;
  if (tools.some((tool) => typeof tool.type === "string" && tool.type.startsWith("tool_search_tool_"))) return tools;
  return [...tools, TOOL_SEARCH_TOOL];
}
