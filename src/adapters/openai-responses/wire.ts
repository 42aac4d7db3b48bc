/**
 * The Responses API wire types this adapter speaks, taken from the official SDK so that a change
 * of the API shows up as a type error here, plus the few shapes the SDK types leave out.
 */
import type {
  ResponseCreateParamsNonStreaming,
  ResponseInputItem,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseStreamEvent,
} from "openai/resources/responses/responses";

export type {
  CustomTool,
  FunctionTool,
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseCustomToolCall,
  ResponseError,
  ResponseFormatTextConfig,
  ResponseFunctionCallOutputItem,
  ResponseFunctionToolCall,
  ResponseInputContent,
  ResponseInputItem,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseReasoningItem,
  ResponseStreamEvent,
  ResponseTextConfig,
  ResponseUsage,
  Tool,
  ToolChoiceCustom,
  ToolChoiceFunction,
  ToolChoiceOptions,
} from "openai/resources/responses/responses";
export type { Reasoning, CustomToolInputFormat } from "openai/resources/shared";

/**
 * An earlier answer's text sent back. The API takes output messages without the `id`, `status`
 * and `annotations` the SDK's ResponseOutputMessage requires (they describe a stored item), and
 * Codex sends them so; `phase` goes back as it came (gpt-5.3-codex and later want it).
 */
export interface AssistantMessageInput {
  type: "message";
  role: "assistant";
  content: Array<Pick<ResponseOutputText, "type" | "text">>;
  phase?: ResponseOutputMessage["phase"];
}

/** An item this provider produced, sent back exactly as it came (reasoning, hosted tool calls). */
export type StoredItem = { [key: string]: unknown };

export type WireInputItem = ResponseInputItem | AssistantMessageInput | StoredItem;

/** A tool of the client's, sent as the client wrote it (hosted tools: web_search, file_search, …). */
export type PassthroughTool = { [key: string]: unknown };

/**
 * The request body. `input` holds items the SDK types cannot name (stored items verbatim); the
 * SDK sends whatever the object holds.
 */
export type WireParams = Omit<ResponseCreateParamsNonStreaming, "input" | "tools"> & {
  input: WireInputItem[];
  tools?: Array<NonNullable<ResponseCreateParamsNonStreaming["tools"]>[number] | PassthroughTool>;
};

/**
 * An `error` event. The API reference puts code and message at the top level; what OpenAI sends
 * nests them in `error` (recorded: `{"type":"error","error":{"type":"insufficient_quota",…}}`).
 */
export interface WireErrorEvent {
  type: "error";
  code?: string | null;
  message?: string;
  param?: string | null;
  error?: { type?: string | null; code?: string | null; message?: string; param?: string | null } | null;
}

/** What a stream may carry: the SDK's events, and the `error` event as OpenAI really sends it. */
export type WireStreamEvent = ResponseStreamEvent | WireErrorEvent;
