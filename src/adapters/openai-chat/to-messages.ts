import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
  ChatCompletionUserMessageParam,
} from "openai/resources/chat/completions";
import type { AssistantMessage, Message, TextBlock, ToolCallBlock, ToolMessage, UserContent } from "../../core/index.ts";
import { isJsonObject } from "../../core/json-object.ts";
import { pairToolResults } from "../tool-pairing.ts";
import { imageUrl, renderPart, renderToolResult } from "./render-content.ts";

/** Separate text blocks of one message stay separate paragraphs. */
const joinText = (blocks: TextBlock[]): string => blocks.map((block) => block.text).join("\n\n");

function audioFormat(mediaType: string): "wav" | "mp3" | undefined {
  if (/wav/i.test(mediaType)) return "wav";
  if (/mpeg|mp3/i.test(mediaType)) return "mp3";
  return undefined;
}

function userPart(block: UserContent): ChatCompletionContentPart {
  if (block.type === "image") return { type: "image_url", image_url: { url: imageUrl(block.source), ...(block.detail ? { detail: block.detail } : {}) } };
  const format = block.type === "audio" ? audioFormat(block.mediaType) : undefined;
  if (block.type === "audio" && format) return { type: "input_audio", input_audio: { data: block.data, format } };
  return { type: "text", text: renderPart(block) };
}

/** Plain string content when the message is only text: every compatible server accepts that. */
function toUserMessage(content: UserContent[]): ChatCompletionUserMessageParam {
  const onlyText = content.every((block): block is TextBlock => block.type === "text");
  return { role: "user", content: onlyText ? joinText(content) : content.map(userPart) };
}

/** The call's own argument text when it is a valid JSON object, so the model sees what it wrote. */
function wireArguments(call: ToolCallBlock): string {
  if (call.rawArguments.trim() !== "") {
    try {
      const value: unknown = JSON.parse(call.rawArguments);
      if (isJsonObject(value)) return call.rawArguments;
    } catch {
      // unparsable: send the parsed arguments instead
    }
  }
  return JSON.stringify(call.arguments);
}

function toWireToolCall(call: ToolCallBlock): ChatCompletionMessageFunctionToolCall {
  return { id: call.id, type: "function", function: { name: call.name, arguments: wireArguments(call) } };
}

/** Text and calls only: reasoning goes back only where a quirk step says so (reasoning-replay.ts). */
function toAssistantMessage(message: AssistantMessage): ChatCompletionAssistantMessageParam {
  const texts = message.content.filter((block): block is TextBlock => block.type === "text");
  const calls = message.content.filter((block): block is ToolCallBlock => block.type === "tool_call");
  const wire: ChatCompletionAssistantMessageParam = { role: "assistant", content: texts.length > 0 ? joinText(texts) : calls.length > 0 ? null : "" };
  if (calls.length > 0) wire.tool_calls = calls.map(toWireToolCall);
  return wire;
}

/** One `tool` message per result: Chat Completions has no multi-result message. */
function toToolMessages(message: ToolMessage): ChatCompletionToolMessageParam[] {
  return message.content.map((block) => ({ role: "tool", tool_call_id: block.callId, content: renderToolResult(block) }));
}

/** A message's `name`, set when it has one; presets of providers that refuse it take it off again (quirks messageNames). */
function named<T extends ChatCompletionMessageParam>(wire: T, name: string | undefined): T {
  if (name) (wire as { name?: string }).name = name;
  return wire;
}

/**
 * The wire messages, with the tool pairing Chat Completions requires repaired (tool-pairing.ts).
 * A loop and plain objects, not `flatMap` and `{ ...wire, ...named }`: on every request's path,
 * and on Node 20 that form cost 0.5 µs for one message against 0.08 µs (src/core/extend.ts says why).
 */
export function toWireMessages(messages: Message[]): ChatCompletionMessageParam[] {
  const wire: ChatCompletionMessageParam[] = [];
  for (const message of pairToolResults(messages)) {
    switch (message.role) {
      case "system":
        wire.push(named({ role: "system", content: joinText(message.content) }, message.name));
        break;
      case "user":
        wire.push(named(toUserMessage(message.content), message.name));
        break;
      case "assistant":
        wire.push(named(toAssistantMessage(message), message.name));
        break;
      case "tool":
        for (const result of toToolMessages(message)) wire.push(result);
        break;
    }
  }
  return wire;
}
