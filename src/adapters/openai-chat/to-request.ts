import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { ResponseFormatJSONObject, ResponseFormatJSONSchema, ResponseFormatText } from "openai/resources/shared";
import type { ChatRequest, ResponseFormat, ToolChoice, ToolDefinition } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import { OPENAI_REASONING_MODEL } from "../openai-models.ts";
import { toWireMessages } from "./to-messages.ts";

export interface RequestOptions {
  /**
   * The body field for `maxTokens`. `as-sent` (the default): `max_completion_tokens` when the
   * client chose that field (`openaiFields`), else `max_tokens`: OpenAI's reasoning models refuse
   * `max_tokens`, while many compatible servers know only `max_tokens` (their presets force it).
   * A request whose `extra` carries `max_completion_tokens` gets no `max_tokens` either way.
   */
  maxTokensField?: "as-sent" | "max_tokens" | "max_completion_tokens";
  /** Which of the client's OpenAI-only fields (`openaiFields`) go out, by name; `"*"` (the default) for all. */
  openaiOnlyFields?: readonly string[];
  /** How reasoning is asked for (the `reasoningRequest` quirk); `reasoning_effort` by default. */
  reasoningRequest?: "reasoning_effort" | "thinking";
}

function toTool(tool: ToolDefinition): ChatCompletionFunctionTool {
  return {
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      parameters: tool.inputSchema,
      ...(tool.strict === undefined ? {} : { strict: tool.strict }),
    },
  };
}

function toToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return choice.type === "tool" ? { type: "function", function: { name: choice.name } } : choice.type;
}

type WireResponseFormat = ResponseFormatText | ResponseFormatJSONObject | ResponseFormatJSONSchema;

function toResponseFormat(format: ResponseFormat): WireResponseFormat {
  if (format.type !== "json_schema") return { type: format.type };
  const { name, schema, strict, description } = format;
  return {
    type: "json_schema",
    json_schema: {
      name,
      schema,
      ...(strict === undefined ? {} : { strict }),
      ...(description === undefined ? {} : { description }),
    },
  };
}

/** tools, tool_choice and parallel_tool_calls travel together: servers reject the last two alone. */
function toolFields(request: ChatRequest): Partial<ChatCompletionCreateParamsNonStreaming> {
  if (!request.tools?.length) return {};
  return {
    tools: request.tools.map(toTool),
    ...(request.toolChoice === undefined ? {} : { tool_choice: toToolChoice(request.toolChoice) }),
    ...(request.parallelToolCalls === undefined ? {} : { parallel_tool_calls: request.parallelToolCalls }),
  };
}

function maxTokensField(request: ChatRequest, option: RequestOptions["maxTokensField"] = "as-sent"): string | undefined {
  if (request.extra && "max_completion_tokens" in request.extra) return undefined;
  // OpenAI's reasoning models refuse `max_tokens` wherever they are served, whichever field the
  // client used (a Messages or Responses client has no `max_completion_tokens` to choose).
  if (OPENAI_REASONING_MODEL.test(request.model)) return "max_completion_tokens";
  const chosen = request.openaiFields?.["max_completion_tokens"] === undefined ? "max_tokens" : "max_completion_tokens";
  return option === "as-sent" ? chosen : option;
}

/**
 * The client's OpenAI-only fields the provider takes, but the token limit: `maxTokens` (which
 * the loop may adjust) is sent instead.
 */
function openaiOnlyFields(request: ChatRequest, allowed: readonly string[] = ["*"]): { [key: string]: unknown } {
  if (!request.openaiFields || allowed.length === 0) return {};
  const { max_completion_tokens: _limit, ...fields } = request.openaiFields;
  return allowed.includes("*") ? fields : Object.fromEntries(Object.entries(fields).filter(([key]) => allowed.includes(key)));
}

/**
 * The reasoning asked for, in the provider's field. A request translated from another protocol
 * (Claude Code asks every model to think) is not sent into a refusal: with `reasoning_effort`,
 * only to models named like OpenAI's reasoning models.
 */
function reasoningFields(request: ChatRequest, field: RequestOptions["reasoningRequest"] = "reasoning_effort"): { [key: string]: unknown } {
  const effort = request.reasoning?.effort;
  if (effort === undefined) return {};
  if (field === "thinking") return { thinking: { type: effort === "none" ? "disabled" : "enabled" } };
  if (request.reasoning?.translated && !OPENAI_REASONING_MODEL.test(request.model)) return {};
  return { reasoning_effort: effort };
}

function samplingFields(request: ChatRequest, options: RequestOptions): Partial<ChatCompletionCreateParamsNonStreaming> {
  const field = maxTokensField(request, options.maxTokensField);
  return {
    ...openaiOnlyFields(request, options.openaiOnlyFields),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.topP === undefined ? {} : { top_p: request.topP }),
    ...(request.maxTokens === undefined || !field ? {} : { [field]: request.maxTokens }),
    ...(request.stop?.length ? { stop: request.stop } : {}),
    ...(request.seed === undefined ? {} : { seed: request.seed }),
    ...(request.user === undefined ? {} : { user: request.user }),
    ...reasoningFields(request, options.reasoningRequest),
    ...(request.responseFormat === undefined ? {} : { response_format: toResponseFormat(request.responseFormat) }),
  };
}

/** The non-streamed Chat Completions body for a neutral request; `extra` is merged last. */
export function toChatCompletionParams(request: ChatRequest, options: RequestOptions = {}): ChatCompletionCreateParamsNonStreaming {
  // `stream` is ours to decide (complete vs stream); everything else in `extra` wins.
  const { stream: _ignored, ...extra } = request.extra ?? {};
  return {
    model: request.model,
    messages: toWireMessages(request.messages),
    ...toolFields(request),
    ...samplingFields(request, options),
    ...extra,
  };
}

/** A non-streamed body made streamed: usage is requested so the last chunk carries token counts. */
export function withStreaming(body: ChatCompletionCreateParamsNonStreaming): ChatCompletionCreateParamsStreaming {
  return extend(body, { stream: true as const, stream_options: extend(body.stream_options ?? {}, { include_usage: true }) });
}

/** The streamed body for a neutral request. */
export function toStreamingParams(request: ChatRequest, options: RequestOptions = {}): ChatCompletionCreateParamsStreaming {
  return withStreaming(toChatCompletionParams(request, options));
}
