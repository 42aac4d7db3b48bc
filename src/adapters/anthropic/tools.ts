import type { JsonSchema, ToolDefinition } from "../../core/index.ts";
import type { Tool } from "./wire.ts";

/**
 * Anthropic requires a top-level `type` ("tools.N.custom.input_schema.type: Field required"); MCP
 * tools without parameters often send `{}`. Deeper normalization (top-level unions, draft
 * 2020-12) belongs to the tool registry, which prepares schemas per provider before they get here.
 */
function inputSchema(schema: JsonSchema): Tool["input_schema"] {
  if (schema["type"] !== undefined) return schema as Tool["input_schema"];
  return { ...schema, type: "object", properties: schema["properties"] ?? {} };
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
