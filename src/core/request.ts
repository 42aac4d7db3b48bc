import type { JsonSchema, Message } from "./content.ts";

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments, already normalized for the target by whoever built the request. */
  inputSchema: JsonSchema;
  /** OpenAI structured-outputs strict mode for this tool. */
  strict?: boolean;
}

export type ToolChoice =
  | { type: "auto" }
  | { type: "none" }
  | { type: "required" }
  | { type: "tool"; name: string };

export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: JsonSchema; strict?: boolean; description?: string };

export type ReasoningEffort = "minimal" | "low" | "medium" | "high";

export interface ReasoningOptions {
  /** OpenAI-style effort; adapters map it (e.g. to an Anthropic thinking budget). */
  effort?: ReasoningEffort;
  /** An explicit thinking budget in tokens, where the provider takes one. */
  budgetTokens?: number;
}

export interface ChatRequest {
  /** The model id as the provider knows it (no `provider/` prefix). */
  model: string;
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  stop?: string[];
  responseFormat?: ResponseFormat;
  seed?: number;
  user?: string;
  reasoning?: ReasoningOptions;
  /** Provider-specific body fields passed through unchanged (merged last into the wire body). */
  extra?: { [key: string]: unknown };
}
