/** OpenAI Chat Completions request (validated) -> the neutral request. */
import { parseToolArguments } from "../../../adapters/tool-arguments.ts";
import type {
  AssistantContent,
  ChatRequest,
  ImageBlock,
  Message,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
  UserContent,
} from "../../../core/index.ts";
import { defined, imageFromUrl } from "../../shared/neutral-helpers.ts";
import { openaiPassThroughFields, type ChatCompletionRequest, type ChatMessageInput } from "./request-schema.ts";

type Input<R extends ChatMessageInput["role"]> = Extract<ChatMessageInput, { role: R }>;

function textOf(content: string | { text: string }[] | null | undefined): string {
  if (content == null) return "";
  return typeof content === "string" ? content : content.map((part) => part.text).join("");
}


function userContent(message: Input<"user">): UserContent[] {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return message.content.map((part): UserContent => {
    switch (part.type) {
      case "text":
        return { type: "text", text: part.text };
      case "image_url":
        return { ...imageFromUrl(part.image_url.url), ...(part.image_url.detail ? { detail: part.image_url.detail } : {}) };
      case "input_audio":
        return { type: "audio", mediaType: `audio/${part.input_audio.format}`, data: part.input_audio.data };
    }
  });
}

function assistantContent(message: Input<"assistant">): AssistantContent[] {
  const blocks: AssistantContent[] = [];
  if (message.reasoning_content) blocks.push({ type: "reasoning", text: message.reasoning_content });
  const text = Array.isArray(message.content)
    ? message.content.map((part) => (part.type === "text" ? part.text : part.refusal)).join("")
    : (message.content ?? message.refusal ?? "");
  if (text !== "") blocks.push({ type: "text", text });
  for (const call of message.tool_calls ?? []) {
    const parsed = parseToolArguments(call.function.arguments);
    blocks.push({
      type: "tool_call",
      id: call.id,
      name: call.function.name,
      arguments: parsed.arguments,
      rawArguments: call.function.arguments,
      ...(parsed.error === undefined ? {} : { argumentsError: parsed.error }),
    });
  }
  return blocks;
}

const named = (name: string | undefined) => (name ? { name } : {});

/** Converts messages; consecutive tool messages become one neutral tool message (one turn's results). */
export function toNeutralMessages(input: readonly ChatMessageInput[]): Message[] {
  const messages: Message[] = [];
  const toolNames = new Map<string, string>();
  for (const message of input) {
    switch (message.role) {
      case "system":
      case "developer":
        messages.push({ role: "system", content: [{ type: "text", text: textOf(message.content) }], ...named(message.name) });
        break;
      case "user":
        messages.push({ role: "user", content: userContent(message), ...named(message.name) });
        break;
      case "assistant": {
        const content = assistantContent(message);
        for (const block of content) if (block.type === "tool_call") toolNames.set(block.id, block.name);
        messages.push({ role: "assistant", content, ...named(message.name) });
        break;
      }
      case "tool": {
        const name = toolNames.get(message.tool_call_id);
        const result: ToolResultBlock = {
          type: "tool_result",
          callId: message.tool_call_id,
          ...(name === undefined ? {} : { name }),
          content: [{ type: "text", text: textOf(message.content) }],
          isError: false,
        };
        const last = messages.at(-1);
        if (last?.role === "tool") last.content.push(result);
        else messages.push({ role: "tool", content: [result] });
        break;
      }
    }
  }
  return messages;
}

function toolChoice(choice: ChatCompletionRequest["tool_choice"]): ToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (typeof choice === "string") return { type: choice };
  return { type: "tool", name: choice.function.name };
}

function responseFormat(format: ChatCompletionRequest["response_format"]): ResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type !== "json_schema") return { type: format.type };
  const { name, description, schema, strict } = format.json_schema;
  return {
    type: "json_schema",
    name,
    schema: schema ?? {},
    ...(description === undefined ? {} : { description }),
    ...(strict == null ? {} : { strict }),
  };
}

function clientTools(tools: ChatCompletionRequest["tools"]): ToolDefinition[] | undefined {
  return tools?.map(({ function: fn }) => ({
    name: fn.name,
    ...(fn.description === undefined ? {} : { description: fn.description }),
    inputSchema: fn.parameters ?? { type: "object", properties: {} },
    ...(fn.strict == null ? {} : { strict: fn.strict }),
  }));
}


const PASS_THROUGH = Object.keys(openaiPassThroughFields) as (keyof typeof openaiPassThroughFields)[];

/**
 * The OpenAI-only fields the client set, and `max_completion_tokens` when it chose that field
 * (OpenAI's reasoning models refuse `max_tokens`; the adapter sends the field the client chose).
 */
function openaiFields(body: ChatCompletionRequest): ChatRequest["openaiFields"] {
  const fields: { [key: string]: unknown } = {};
  for (const key of PASS_THROUGH) if (body[key] != null) fields[key] = body[key];
  if (body.max_completion_tokens != null) fields["max_completion_tokens"] = body.max_completion_tokens;
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** The neutral request; `model` is left for the router to fill with the provider's model id. */
export function toNeutralRequest(body: ChatCompletionRequest): Omit<ChatRequest, "model"> {
  const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  return defined({
    messages: toNeutralMessages(body.messages),
    tools: clientTools(body.tools),
    toolChoice: toolChoice(body.tool_choice),
    parallelToolCalls: body.parallel_tool_calls,
    temperature: body.temperature ?? undefined,
    topP: body.top_p ?? undefined,
    maxTokens,
    stop: body.stop == null ? undefined : Array.isArray(body.stop) ? body.stop : [body.stop],
    responseFormat: responseFormat(body.response_format),
    seed: body.seed ?? undefined,
    user: body.user,
    reasoning: body.reasoning_effort ? { effort: body.reasoning_effort } : undefined,
    openaiFields: openaiFields(body),
  });
}
