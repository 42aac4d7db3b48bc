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
  }));
}
