import type { SchemaTarget } from "../../core/index.ts";
import type { QuirkSwitches } from "./types.ts";

/**
 * The schema dialect the gateway should normalize MCP tools for, for an OpenAI-protocol
 * provider with these switches (strict tools aside, which the registry decides per tool).
 */
export function schemaTargetOf(switches: QuirkSwitches): SchemaTarget {
  return switches.toolSchemas === "gemini" ? "gemini" : "openai";
}
