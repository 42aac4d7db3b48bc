/**
 * The request's tools as Responses tools, and the tool choice. Function tools go out as function
 * tools, freeform tools (ToolDefinition.freeform) as custom tools, and deferred ones not at all:
 * the model is not offered them yet.
 */
import type { ChatRequest, ToolDefinition } from "../../core/index.ts";
import type { CustomTool, CustomToolInputFormat, FunctionTool, ToolChoiceCustom, ToolChoiceFunction, ToolChoiceOptions } from "./wire.ts";

/**
 * `strict` is always sent (the SDK's type requires it, rather than leaving it to the API's
 * default): off unless the tool asks, as strict mode refuses most MCP schemas (optional
 * properties, open objects).
 */
function functionTool(tool: ToolDefinition): FunctionTool {
  return {
    type: "function",
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    parameters: tool.inputSchema,
    strict: tool.strict ?? false,
  };
}

/** The grammar (or plain text) format is passed as the client gave it. */
function customTool(tool: ToolDefinition, format: { [key: string]: unknown } | undefined): CustomTool {
  return {
    type: "custom",
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(format === undefined ? {} : { format: format as unknown as CustomToolInputFormat }),
  };
}

/** The tools offered to the model now (deferred ones left out). */
export function offeredTools(tools: readonly ToolDefinition[] | undefined): ToolDefinition[] {
  return (tools ?? []).filter((tool) => !tool.deferred);
}

export function toWireTools(tools: readonly ToolDefinition[]): Array<FunctionTool | CustomTool> {
  return tools.map((tool) => (tool.freeform ? customTool(tool, tool.freeform.format) : functionTool(tool)));
}

/** Names of the freeform tools: calls to them are custom tool calls. */
export function freeformNames(tools: readonly ToolDefinition[] | undefined): Set<string> {
  return new Set((tools ?? []).filter((tool) => tool.freeform).map((tool) => tool.name));
}

/** A named choice says which kind of tool it names. */
export function toWireToolChoice(request: ChatRequest): ToolChoiceOptions | ToolChoiceFunction | ToolChoiceCustom | undefined {
  const choice = request.toolChoice;
  if (choice === undefined) return undefined;
  if (choice.type !== "tool") return choice.type;
  const freeform = request.tools?.some((tool) => tool.name === choice.name && tool.freeform);
  return { type: freeform ? "custom" : "function", name: choice.name };
}
