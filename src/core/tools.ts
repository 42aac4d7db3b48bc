import type { ToolCallBlock, ToolResultBlock } from "./content.ts";
import type { ToolDefinition } from "./request.ts";
import type { TraceCarrier } from "./request-context.ts";

/** The schema dialects tool definitions are normalized to, one per provider family. */
export type SchemaTarget = "openai" | "openai-strict" | "anthropic" | "gemini";

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface ToolCallContext {
  signal?: AbortSignal;
  onProgress?: (progress: ToolProgress) => void;
  /**
   * The W3C trace context (`traceparent`, `tracestate`) the request's client sent, passed on to
   * an MCP server in `_meta` while the gateway does not trace itself (src/core/tracing.ts).
   */
  trace?: TraceCarrier;
}

/**
 * Tools the gateway runs itself (the MCP registry implements it; tests use in-memory ones).
 * `call` never throws for a tool's own failure: an invalid call, a timeout or a crashed server
 * come back as an error result the model can react to.
 */
export interface ToolSet {
  definitions(target: SchemaTarget): ToolDefinition[];
  has(name: string): boolean;
  call(call: ToolCallBlock, context: ToolCallContext): Promise<ToolResultBlock>;
}
