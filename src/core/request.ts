import type { JsonSchema, Message } from "./content.ts";

export interface ToolDefinition {
  name: string;
  description?: string;
  /** JSON Schema of the arguments, already normalized for the target by whoever built the request. */
  inputSchema: JsonSchema;
  /** OpenAI structured-outputs strict mode for this tool. */
  strict?: boolean;
  /**
   * A freeform tool (OpenAI's custom tools, such as Codex's `apply_patch`): the model writes raw
   * text, optionally under a grammar, instead of JSON arguments. Protocols that have them send it
   * as such (`format` as the client gave it); for the others `inputSchema` is an object with one
   * string property, `input`, and a call's text is `arguments.input` either way.
   */
  freeform?: { format?: { [key: string]: unknown } };
  /**
   * A client tool the model is not offered yet (Anthropic tool search: `defer_loading` until a
   * `tool_reference` loads it). Still the client's: a call to it is handed back to the client.
   */
  deferred?: boolean;
  /**
   * A gateway tool left for the provider's own tool search to load when the model looks for it
   * (Anthropic's `defer_loading`, with its tool search tool): its schema is not in the prompt.
   */
  deferLoading?: boolean;
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

/** OpenAI's reasoning_effort values; `none` asks for no reasoning. */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

export interface ReasoningOptions {
  /** OpenAI-style effort; adapters map it (e.g. to an Anthropic thinking budget). */
  effort?: ReasoningEffort;
  /** An explicit thinking budget in tokens, where the provider takes one. */
  budgetTokens?: number;
  /**
   * Translated from another protocol's thinking switch (Anthropic's `thinking`, which Claude
   * Code sends to every model), not asked of this provider in its own terms: sent only where the
   * model is known to take it, never into a 400 on a model without reasoning.
   */
  translated?: boolean;
}

/**
 * The client's request in a provider's own protocol, for an adapter of that protocol to send on
 * unchanged: a faithful pass-through, but for the gateway's tools and the turns it runs.
 * Adapters of other protocols ignore it and use the neutral fields.
 */
export interface RequestPassthrough {
  /** Whose protocol: an adapter acts only on its own (`anthropic-messages`, `openai-responses`). */
  protocol: "anthropic-messages" | "openai-responses";
  /** The body's fields other than model, messages (input), tools and stream, as the client sent them. */
  body: { [key: string]: unknown };
  /** The client's tools as sent (server tools and deferred ones included). */
  tools: { [key: string]: unknown }[];
  /** Protocol headers to forward (anthropic-version, anthropic-beta; OpenAI-Beta). */
  headers: { [key: string]: string };
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
  /**
   * OpenAI Chat Completions fields the client set that have no neutral meaning
   * (`frequency_penalty`, `logit_bias`, `service_tier`, `max_completion_tokens` as the field it
   * chose, …), as sent. The OpenAI-chat adapter sends them on; other protocols have no such
   * fields and ignore them.
   */
  openaiFields?: { [key: string]: unknown };
  /** Provider-specific body fields passed through unchanged (merged last into the wire body). */
  extra?: { [key: string]: unknown };
  passthrough?: RequestPassthrough;
}
