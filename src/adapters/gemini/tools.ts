/**
 * The request's tools as Gemini `functionDeclarations`, and the tool choice as
 * `toolConfig.functionCallingConfig`. Schemas are in the registry's `gemini` dialect (MCP tools
 * arrive normalized for it); a client's own tools arrive as the client wrote them and get the same
 * normalization (idempotent, cached per schema object): Gemini refuses unknown keywords ("Unknown
 * name "additionalProperties" … Cannot find field."), type lists, non-string enums and most formats.
 */
import type { ChatRequest, ToolDefinition } from "../../core/index.ts";
import { geminiParameters } from "../quirks/request/tool-schemas.ts";
import type { WireFunctionDeclaration, WireTool, WireToolConfig } from "./wire.ts";

/** The tools offered to the model now (deferred ones are not offered yet). */
export function offeredTools(tools: readonly ToolDefinition[] | undefined): ToolDefinition[] {
  return (tools ?? []).filter((tool) => !tool.deferred);
}

/** A function without parameters leaves `parameters` out, as Google documents. */
function declaration(tool: ToolDefinition): WireFunctionDeclaration {
  const parameters = geminiParameters(tool.inputSchema);
  const empty = parameters["type"] === "object" && Object.keys(parameters).length === 1;
  return {
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    ...(empty ? {} : { parameters }),
  };
}

export function toWireTools(tools: readonly ToolDefinition[]): WireTool[] {
  return tools.length === 0 ? [] : [{ functionDeclarations: tools.map(declaration) }];
}

/**
 * `auto` is Gemini's default and is sent as such; `required` is `ANY`; a named tool is `ANY` with
 * that one name allowed; `none` is `NONE`. Gemini has no switch for parallel calls.
 */
export function toWireToolConfig(request: ChatRequest): WireToolConfig | undefined {
  const choice = request.toolChoice;
  switch (choice?.type) {
    case undefined:
      return undefined;
    case "auto":
      return { functionCallingConfig: { mode: "AUTO" } };
    case "none":
      return { functionCallingConfig: { mode: "NONE" } };
    case "required":
      return { functionCallingConfig: { mode: "ANY" } };
    case "tool":
      return { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
  }
}
