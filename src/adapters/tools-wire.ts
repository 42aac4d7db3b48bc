/**
 * Tool definitions exactly as a provider receives them on the wire (for `mcp-gateway tools`).
 * Gemini is reached through its OpenAI-compatible endpoint, so it gets the OpenAI shape with
 * Gemini-subset schemas.
 */
import type { SchemaTarget, ToolDefinition } from "../core/index.ts";
import { toWireTools } from "./anthropic/index.ts";
import { toChatCompletionParams } from "./openai-chat/index.ts";

export function toolsOnTheWire(tools: ToolDefinition[], target: SchemaTarget): unknown[] {
  if (target === "anthropic") return toWireTools(tools);
  return toChatCompletionParams({ model: "-", messages: [], tools }).tools ?? [];
}
