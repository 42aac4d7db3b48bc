/**
 * Responses output items as neutral content, shared by the plain and the streamed response so
 * that both give the same result.
 */
import type { AssistantContent, OpaqueBlock, ReasoningBlock, TextBlock, ToolCallBlock } from "../../core/index.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import type { ResponseCustomToolCall, ResponseFunctionToolCall, ResponseOutputItem, ResponseOutputMessage, ResponseReasoningItem } from "./wire.ts";

export const TRUNCATED_CALL_ERROR = "the tool input was cut off before it was complete (the response ended inside the tool call)";

/** Summaries are a reasoning item's readable text; open-weight servers send the reasoning itself as `content`. */
export function reasoningText(item: Pick<ResponseReasoningItem, "summary" | "content">): string {
  const summary = (item.summary ?? []).map((part) => part.text).join("\n\n");
  if (summary !== "") return summary;
  return (item.content ?? []).map((part) => part.text).join("\n\n");
}

/**
 * The whole item is kept (id, summary, encrypted_content): it goes back verbatim in the next
 * turn's input, where OpenAI wants it before the calls it came with.
 */
export function reasoningBlock(item: ResponseReasoningItem, origin: string): ReasoningBlock {
  return { type: "reasoning", text: reasoningText(item), providerData: { origin, data: { item } } };
}

/** A message part's text; a refusal reads as text. */
export function partText(part: ResponseOutputMessage["content"][number]): string {
  return part.type === "refusal" ? part.refusal : part.text;
}

/** One text block per part; the message's `phase` is kept to go back with it. */
export function messageBlocks(item: ResponseOutputMessage, origin: string): TextBlock[] {
  const phase = item.phase;
  return (item.content ?? [])
    .map(partText)
    .filter((text) => typeof text === "string" && text !== "")
    .map((text): TextBlock => (phase ? { type: "text", text, providerData: { origin, data: { phase } } } : { type: "text", text }));
}

export function isRefusal(item: ResponseOutputMessage): boolean {
  return (item.content ?? []).some((part) => part.type === "refusal" && part.refusal !== "");
}

/**
 * A call the response ended inside (status `incomplete`) is never handed out as runnable: even
 * when its JSON could be repaired, the arguments would be partial.
 */
export function functionCallBlock(item: ResponseFunctionToolCall): ToolCallBlock {
  const raw = item.arguments ?? "";
  if (item.status === "incomplete") return { type: "tool_call", id: item.call_id, name: item.name, arguments: {}, rawArguments: raw, argumentsError: TRUNCATED_CALL_ERROR };
  const parsed = parseToolArguments(raw);
  const call: ToolCallBlock = { type: "tool_call", id: item.call_id, name: item.name, arguments: parsed.arguments, rawArguments: raw };
  if (parsed.error !== undefined) call.argumentsError = parsed.error;
  return call;
}

/**
 * A freeform call's text is its `input` argument (see ToolDefinition.freeform). The SDK types
 * give custom calls no status, but a cut-off one is as unsafe to run as a function call.
 */
export function customCallBlock(item: ResponseCustomToolCall): ToolCallBlock {
  const input = item.input ?? "";
  const call: ToolCallBlock = { type: "tool_call", id: item.call_id, name: item.name, arguments: { input }, rawArguments: JSON.stringify({ input }) };
  if ((item as { status?: unknown }).status === "incomplete") return { ...call, arguments: {}, argumentsError: TRUNCATED_CALL_ERROR };
  return call;
}

/**
 * An item the neutral model has no words for (a hosted tool's web_search_call, file_search_call,
 * image_generation_call, code_interpreter_call, mcp_call, …): it ran on the provider's side, and
 * is kept whole to go back to it and on to Responses clients.
 */
export function opaqueBlock(item: object, origin: string): OpaqueBlock {
  return { type: "opaque", providerData: { origin, data: { item } } };
}

export function itemContent(item: ResponseOutputItem, origin: string): AssistantContent[] {
  switch (item.type) {
    case "message":
      return messageBlocks(item, origin);
    case "reasoning":
      return [reasoningBlock(item, origin)];
    case "function_call":
      return [functionCallBlock(item)];
    case "custom_tool_call":
      return [customCallBlock(item)];
    default:
      return [opaqueBlock(item, origin)];
  }
}
