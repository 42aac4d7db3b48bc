/**
 * The Anthropic Messages request as the gateway accepts it. The fields the gateway reads are
 * validated (a bad one is a 400 naming its JSON path); everything else — cache_control, block
 * and tool types it does not know, `context_management`, fields added after this was written —
 * is kept as sent, for Anthropic upstreams to receive unchanged.
 */
import { z } from "zod";
import { REASONING_EFFORTS } from "../../shared/neutral-helpers.ts";

const text = z.looseObject({ type: z.literal("text"), text: z.string() });

const imageSource = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("base64"), media_type: z.string().min(1), data: z.string().min(1) }),
  z.looseObject({ type: z.literal("url"), url: z.string().min(1) }),
  z.looseObject({ type: z.literal("file"), file_id: z.string().min(1) }),
]);
const image = z.looseObject({ type: z.literal("image"), source: imageSource });

const documentSource = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("base64"), media_type: z.string().min(1), data: z.string().min(1) }),
  z.looseObject({ type: z.literal("text"), media_type: z.string().optional(), data: z.string() }),
  z.looseObject({ type: z.literal("url"), url: z.string().min(1) }),
  z.looseObject({ type: z.literal("content"), content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]) }),
  z.looseObject({ type: z.literal("file"), file_id: z.string().min(1) }),
]);
const document = z.looseObject({
  type: z.literal("document"),
  source: documentSource,
  title: z.string().nullable().optional(),
  context: z.string().nullable().optional(),
});

const searchResult = z.looseObject({ type: z.literal("search_result"), source: z.string(), title: z.string(), content: z.array(text) });
const toolReference = z.looseObject({ type: z.literal("tool_reference"), tool_name: z.string().min(1) });

/** Block types the gateway reads; any other type is kept as sent (server tool blocks, new types). */
const KNOWN_BLOCK_TYPES = new Set(["text", "image", "document", "search_result", "tool_reference", "tool_use", "tool_result", "thinking", "redacted_thinking"]);

const otherBlock = z.looseObject({
  // Aborting, so that a known type with a bad field reports that field (zod prefers a union member that did not abort).
  type: z.string().refine((type) => !KNOWN_BLOCK_TYPES.has(type), { message: "this block type is checked by its own rules", abort: true }),
});

const resultPart = z.union([z.discriminatedUnion("type", [text, image, document, searchResult, toolReference]), otherBlock]);

const toolResult = z.looseObject({
  type: z.literal("tool_result"),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(resultPart)]).optional(),
  is_error: z.boolean().nullable().optional(),
});
const toolUse = z.looseObject({ type: z.literal("tool_use"), id: z.string().min(1), name: z.string().min(1), input: z.record(z.string(), z.unknown()) });
const thinking = z.looseObject({ type: z.literal("thinking"), thinking: z.string(), signature: z.string() });
const redactedThinking = z.looseObject({ type: z.literal("redacted_thinking"), data: z.string() });

const block = z.union([
  z.discriminatedUnion("type", [text, image, document, searchResult, toolReference, toolUse, toolResult, thinking, redactedThinking]),
  otherBlock,
]);

export const messageSchema = z.looseObject({
  // `system` in messages: Claude Code sends it to newer models (per-turn system prompts).
  role: z.enum(["user", "assistant", "system"]),
  content: z.union([z.string(), z.array(block)]),
});

const customTool = z.looseObject({
  type: z.literal("custom").nullable().optional(),
  name: z.string().min(1).max(256),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  defer_loading: z.boolean().optional(),
});
/** Anthropic's server tools (`web_search_20250305`, `bash_20250124`, …): a versioned type and a name. */
const serverTool = z.looseObject({ type: z.string().min(1).refine((type) => type !== "custom"), name: z.string().min(1) });

const toolChoice = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("auto"), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("any"), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("tool"), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal("none") }),
]);

const thinkingConfig = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("enabled"), budget_tokens: z.number().int().positive() }),
  z.looseObject({ type: z.literal("adaptive") }),
  z.looseObject({ type: z.literal("disabled") }),
]);


const outputConfig = z.looseObject({
  effort: z.enum(REASONING_EFFORTS).nullable().optional(),
  format: z
    .looseObject({ type: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) })
    .nullable()
    .optional(),
});

const fields = {
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  system: z.union([z.string(), z.array(text)]).optional(),
  tools: z.array(z.union([customTool, serverTool])).optional(),
  tool_choice: toolChoice.optional(),
  thinking: thinkingConfig.optional(),
  output_config: outputConfig.nullable().optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).nullable().optional(),
};

export const messagesRequestSchema = z.looseObject({
  ...fields,
  max_tokens: z.number().int().positive(),
  stream: z.boolean().optional(),
});

/** `count_tokens` takes the same conversation, without a token limit or streaming. */
export const countTokensRequestSchema = z.looseObject(fields);

export type MessagesRequestBody = z.infer<typeof messagesRequestSchema>;
export type CountTokensBody = z.infer<typeof countTokensRequestSchema>;
export type WireMessage = z.infer<typeof messageSchema>;
export type WireBlock = z.infer<typeof block>;
export type WireResultPart = z.infer<typeof resultPart>;
export type WireTool = MessagesRequestBody["tools"] extends (infer T)[] | undefined ? T : never;

/** A custom (client-run) tool, as opposed to one of Anthropic's server tools. */
export function isCustomTool(tool: WireTool): tool is z.infer<typeof customTool> {
  return (tool.type === undefined || tool.type === null || tool.type === "custom") && "input_schema" in tool;
}
