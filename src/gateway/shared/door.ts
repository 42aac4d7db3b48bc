/**
 * What a front door (a client protocol: Chat Completions, Messages, Responses) gives the shared
 * core: how to read its request into the neutral one, and how to write the loop's answer back,
 * whole or streamed. Routing, auth, limits, the loop, the stores and the SSE plumbing are shared.
 */
import type { Context } from "hono";
import type { ChatRequest, ToolSet } from "../../core/index.ts";
import type { LoopOutcome } from "../../loop/index.ts";
import type { ResolvedModel } from "../routing/resolve-model.ts";
import type { RequestLoopOptions } from "./loop-options.ts";
import type { LoopPlan } from "./loop-setup.ts";
import type { SseWriter } from "./sse-pump.ts";

/** A door's request, validated and in neutral terms. */
export interface ParsedRequest {
  /** The model name as the client asked for it. */
  model: string;
  /** The neutral request; `model` is filled in by routing. */
  request: Omit<ChatRequest, "model">;
  stream: boolean;
  /** MCP servers the request itself selects (Responses' `mcp` tools): narrows like `x-mcp-servers`. */
  mcpServers?: readonly string[];
  /** The request's loop options (`mcp_gateway` in the body, `x-mcp-gateway-*` headers). */
  loop?: RequestLoopOptions;
}

export interface PreparedRequest<P extends ParsedRequest = ParsedRequest> {
  /** Who is asking (a digest of the API key, or "anonymous"): scopes the stored steps. */
  tenant: string;
  parsed: P;
  model: ResolvedModel;
  request: ChatRequest;
  tools: ToolSet;
  /** What the answering provider cannot take and was left out: said in a header and the log. */
  warnings: string[];
  /** What the loop may do: turns, compaction, tool search, the tool policy (loop-setup.ts). */
  plan?: LoopPlan;
}

export interface Answer {
  body: unknown;
  /**
   * Names in lower case: they go to Node as a plain object beside the handler's own
   * (src/gateway/http/request-id.ts), where "Content-Type" and "content-type" would be two headers.
   */
  headers?: Record<string, string>;
}

export interface Door<P extends ParsedRequest> {
  /** How the door's lines read in the log ("chat completion", "messages"). */
  readonly label: string;
  /** The body as the door's request; a GatewayError naming the bad field otherwise. */
  parse(json: unknown, c: Context): P | Promise<P>;
  /**
   * After routing, before the loop: fits the request to the provider that answers (leaves out
   * what it cannot take), or does what must happen first (runs the MCP calls a client approved).
   */
  fit?(prepared: PreparedRequest<P>, signal: AbortSignal): void | Promise<void>;
  /** The whole answer, not streamed. */
  respond(outcome: LoopOutcome, prepared: PreparedRequest<P>): Answer;
  /** Writes the streamed answer. */
  writer(prepared: PreparedRequest<P>): SseWriter;
  /**
   * Keeps what the door stores of an answer (Responses' stored responses), before the client sees
   * its end. `answerJson`: the whole answer's JSON as it is sent (not for streams).
   */
  remember?(prepared: PreparedRequest<P>, outcome: LoopOutcome, answer: unknown, answerJson?: string): void | Promise<void>;
}
