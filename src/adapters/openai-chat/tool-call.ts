import type { ToolCallBlock } from "../../core/index.ts";
import { randomHex } from "../../core/random-id.ts";
import { parseToolArguments } from "../tool-arguments.ts";

/**
 * An id for a tool call the provider sent without one (some local servers do). The loop matches
 * tool results to calls by id, so it must be unique within the conversation; the random part
 * makes it unique across turns too.
 */
export function synthesizeToolCallId(): string {
  return `call_${randomHex(12)}`;
}

/** A complete neutral tool call from the wire's id, name and argument text. */
export function toToolCallBlock(id: string, name: string, rawArguments: string): ToolCallBlock {
  const parsed = parseToolArguments(rawArguments);
  const block: ToolCallBlock = { type: "tool_call", id, name, arguments: parsed.arguments, rawArguments };
  if (parsed.error !== undefined) block.argumentsError = parsed.error;
  return block;
}
