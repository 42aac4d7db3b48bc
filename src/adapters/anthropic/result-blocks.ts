/**
 * Anthropic response blocks as neutral content, shared by the plain and the streamed response so
 * that both give the same result.
 */
import type { OpaqueBlock, ProviderData, ReasoningBlock, TextBlock, ToolCallBlock } from "../../core/index.ts";
import { parseToolArguments } from "../tool-arguments.ts";

export const TRUNCATED_CALL_ERROR = "the tool input was cut off before it was complete (the response ended inside the tool call)";

export function textResult(text: string): TextBlock {
  return { type: "text", text };
}

/** The signature is what lets this provider verify the thinking when it is sent back. */
export function thinkingResult(text: string, signature: string, origin: string): ReasoningBlock {
  return { type: "reasoning", text, providerData: { origin, data: { signature } } };
}

export function redactedResult(data: string, origin: string): ReasoningBlock {
  return { type: "reasoning", text: "", redacted: true, providerData: { origin, data: { redactedData: data } } };
}

/**
 * A tool call from its input text. A truncated call is never handed out as runnable: even when
 * its JSON could be repaired, the arguments would be partial.
 */
export function toolCallResult(id: string, name: string, raw: string, truncated = false, providerData?: ProviderData): ToolCallBlock {
  const extra = providerData ? { providerData } : {};
  if (truncated) return { type: "tool_call", id, name, arguments: {}, rawArguments: raw, argumentsError: TRUNCATED_CALL_ERROR, ...extra };
  const parsed = parseToolArguments(raw);
  const call: ToolCallBlock = { type: "tool_call", id, name, arguments: parsed.arguments, rawArguments: raw, ...extra };
  if (parsed.error !== undefined) call.argumentsError = parsed.error;
  return call;
}

const TOOL_USE_FIELDS = new Set(["type", "id", "name", "input"]);

/**
 * A tool_use block's fields beyond id, name and input (`caller`, for programmatic tool calling):
 * kept as provider data, so they go back to Anthropic and on to Anthropic clients as they came.
 */
export function toolUseExtras(block: object, origin: string): ProviderData | undefined {
  const fields = Object.fromEntries(Object.entries(block).filter(([key]) => !TOOL_USE_FIELDS.has(key)));
  return Object.keys(fields).length > 0 ? { origin, data: { fields } } : undefined;
}

/** The input of a non-streamed (or not incrementally streamed) tool_use block as argument text. */
export function inputText(input: unknown): string {
  return JSON.stringify(input ?? {});
}

/**
 * A server tool's block (`server_tool_use`, `web_search_tool_result`, …), whole: it ran on
 * Anthropic's side and goes back to it as it came, and on to Anthropic-protocol clients.
 */
export function opaqueResult(block: object, origin: string): OpaqueBlock {
  return { type: "opaque", providerData: { origin, data: { block } } };
}
