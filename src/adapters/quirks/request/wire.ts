/**
 * The Chat Completions request body as the quirk steps see it: the SDK's param types describe
 * api.openai.com and have no room for what other providers want (`reasoning_content`,
 * `extra_content`, `reasoning_details`), so the steps work on this looser shape.
 */
import type { JsonSchema } from "../../../core/index.ts";

export interface WireContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

export interface WireRequestToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
  /** Gemini's OpenAI-compatible extension: `{ google: { thought_signature } }`. */
  extra_content?: unknown;
}

export interface WireRequestMessage {
  role: string;
  content?: string | WireContentPart[] | null;
  name?: string;
  tool_calls?: WireRequestToolCall[];
  tool_call_id?: string;
  reasoning_content?: string;
  reasoning?: string;
  reasoning_details?: unknown;
  /** Mistral: a trailing assistant message the model continues (prefixTrailingAssistant). */
  prefix?: boolean;
}

export interface WireRequestTool {
  type?: string;
  function: { name: string; description?: string; parameters?: JsonSchema; strict?: boolean | null };
}

export type WireToolChoice = string | { type?: string; function?: { name: string } };

export interface WireRequest {
  model: string;
  messages: WireRequestMessage[];
  tools?: WireRequestTool[];
  tool_choice?: WireToolChoice;
  parallel_tool_calls?: boolean;
  [field: string]: unknown;
}
