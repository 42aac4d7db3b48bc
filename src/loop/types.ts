import type {
  AssistantMessage,
  ChatModel,
  ChatRequest,
  ChatResult,
  GatewayError,
  Message,
  OpaqueBlock,
  ProviderData,
  ReasoningBlock,
  SchemaTarget,
  ToolCallBlock,
  ToolDefinition,
  ToolProgress,
  ToolResultBlock,
  ToolSet,
  Usage,
} from "../core/index.ts";
import type { PlanReport } from "./plan-types.ts";
import type { CompactionReport, ContextOptions } from "./compaction.ts";
import type { ToolSearchOptions, ToolSearchReport } from "./tool-search.ts";

/** Why the loop finished. */
export type LoopStopReason =
  | "stop" // the model answered without tool calls
  | "client_tools" // the model called tools that belong to the client
  | "max_iterations" // still calling tools when the turn budget ran out
  | "length"
  | "content_filter"
  | "hook" // a turn-end hook stopped it
  | "cancelled"; // a person declined the plan (plan mode's review)

export interface ToolExecution {
  call: ToolCallBlock;
  result: ToolResultBlock;
  durationMs: number;
}

export interface LoopOutcome {
  stopReason: LoopStopReason;
  /** The answer for the client: all turns' text, reasoning, and (client_tools) the client's calls only. */
  message: AssistantMessage;
  /**
   * Every message the loop appended (assistant turns in full, with reasoning and MCP calls, and
   * the MCP results). For client_tools these are the steps the client never sees, to splice
   * back in place of the answer when it returns its tool results.
   */
  newMessages: Message[];
  /** Tool calls the client must run (stopReason client_tools). */
  clientToolCalls: ToolCallBlock[];
  usage: Usage;
  turns: number;
  tools: ToolExecution[];
  /** The last model response (id, model name). */
  last: ChatResult;
  /** What context compaction did for the last model call (when the history was cut). */
  compaction?: CompactionReport;
  /** The search tool standing in for the gateway's tools (when their schemas were over the budget). */
  toolSearch?: ToolSearchReport;
  /** The turns ran out with tool calls pending, and one more call without tools gave the answer. */
  finalAnswer?: boolean;
  /** Plan mode: the plan and how each step ended. */
  plan?: PlanReport;
}

export type LoopEvent =
  | { type: "turn_start"; turn: number }
  /** A streamed model call started: who answers (the provider's config name and its model id). */
  | { type: "model_start"; provider?: string; model: string }
  /**
   * Text and reasoning of the current turn, as blocks: start, deltas, end. The end of a reasoning
   * block carries it whole, with the provider data (signature) that must travel back with it.
   */
  | { type: "text_start" }
  | { type: "text_delta"; delta: string }
  | { type: "text_end" }
  | { type: "reasoning_start" }
  | { type: "reasoning_delta"; delta: string }
  | { type: "reasoning_end"; block: ReasoningBlock }
  /** A streamed client tool call opening (MCP calls are never surfaced as tool calls). */
  | { type: "client_tool_call_start"; index: number; id: string; name: string; providerData?: ProviderData }
  | { type: "client_tool_call_delta"; index: number; delta: string }
  /** The streamed client tool call, complete: its arguments parsed (and repaired, if need be). */
  | { type: "client_tool_call_end"; index: number; call: ToolCallBlock }
  /** A block only clients of the provider's own protocol can show (an Anthropic server tool's), complete. */
  | { type: "opaque_block"; block: OpaqueBlock }
  | { type: "model_response"; turn: number; result: ChatResult }
  | { type: "tool_start"; turn: number; call: ToolCallBlock }
  | { type: "tool_progress"; turn: number; call: ToolCallBlock; progress: ToolProgress }
  | { type: "tool_end"; turn: number; call: ToolCallBlock; result: ToolResultBlock; durationMs: number; isError: boolean }
  | { type: "turn_end"; turn: number }
  /** Plan mode: the plan as it is now — written, a step's status changed, re-planned (plan-mode.ts). */
  | { type: "plan"; plan: PlanReport }
  /** A message the user queued (steering.ts) was added to the conversation. */
  | { type: "user_message"; turn: number; kind: "steer" | "follow_up"; message: Message }
  | { type: "usage"; usage: Usage }
  | { type: "done"; outcome: LoopOutcome }
  | { type: "error"; error: GatewayError };

/**
 * The loop's events in batches, as the gateway's doors take them: the events one upstream read
 * makes leave together, one async step per batch instead of one per event (a long answer's
 * events otherwise cost a few promises each). Never an empty batch.
 */
export type LoopBatches = AsyncGenerator<LoopEvent[], LoopOutcome>;

type MaybePromise<T> = T | Promise<T>;

export interface LoopHooks {
  /** May return a replacement request for this model call. */
  beforeModelCall?(context: { turn: number; request: ChatRequest }): MaybePromise<ChatRequest | void>;
  afterModelCall?(context: { turn: number; result: ChatResult }): MaybePromise<void>;
  /** Return `{ deny: reason }` to refuse the call; the model sees the reason as an error result. */
  beforeToolCall?(context: { turn: number; call: ToolCallBlock }): MaybePromise<{ deny: string } | void>;
  afterToolCall?(context: { turn: number; execution: ToolExecution }): MaybePromise<void>;
  /** Return `{ stop: true }` to end the loop after this turn. */
  onTurnEnd?(context: { turn: number; messages: readonly Message[] }): MaybePromise<{ stop: true } | void>;
}

export interface LoopOptions {
  model: ChatModel;
  /** Schema dialect of the model's provider, for the gateway's tools. */
  schemaTarget: SchemaTarget;
  /** The conversation and parameters; `tools` in it are the client's own tools. */
  request: ChatRequest;
  /** Tools the gateway runs itself (MCP). */
  tools: ToolSet;
  /** Stream model output (text deltas forwarded as they arrive). */
  stream: boolean;
  maxIterations: number;
  hooks?: LoopHooks;
  signal?: AbortSignal;
  /**
   * Context compaction before each model call, and once after a provider's context-length error
   * (see compaction.ts). Without it the history is sent as it is, and that error fails the request.
   */
  context?: ContextOptions;
  /** Above a budget of tool-schema tokens, a search tool stands in for the gateway's tools (see tool-search.ts). */
  toolSearch?: ToolSearchOptions;
  /** When the turns run out with only the gateway's tool calls pending: run them, then one more call without tools for an answer. */
  finalAnswer?: boolean;
  /**
   * Messages a user sends into the running loop (steering.ts). With it, a turn's tool calls run
   * one after another, so that a steering message can land between two of them.
   */
  steering?: SteeringQueue;
}

/** Where a running loop finds the messages a user queued for it. Each call takes what is queued. */
export interface SteeringQueue {
  /** Delivered between tool calls: the turn's remaining calls are skipped, the model sees these next. */
  steering(): MaybePromise<Message[]>;
  /** Delivered only when the loop would otherwise stop: the model sees these and goes on. */
  followUp(): MaybePromise<Message[]>;
}

export type { ToolDefinition };
