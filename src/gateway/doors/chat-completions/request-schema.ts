/**
 * The OpenAI Chat Completions request as the gateway accepts it. Known fields are validated
 * strictly (a bad one is a 400 naming its JSON path); unknown top-level fields are ignored, as
 * clients add their own (the AI SDK, agents SDKs) and OpenAI-compatible servers tolerate them.
 */
import { z } from "zod";
import { REASONING_EFFORTS } from "../../shared/neutral-helpers.ts";

const textPart = z.object({ type: z.literal("text"), text: z.string() });
const imagePart = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string().min(1), detail: z.enum(["auto", "low", "high"]).optional() }),
});
const audioPart = z.object({
  type: z.literal("input_audio"),
  input_audio: z.object({ data: z.string(), format: z.string() }),
});
const refusalPart = z.object({ type: z.literal("refusal"), refusal: z.string() });

const userPart = z.discriminatedUnion("type", [textPart, imagePart, audioPart]);

const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function").optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const systemMessage = z.object({
  role: z.enum(["system", "developer"]),
  content: z.union([z.string(), z.array(textPart)]),
  name: z.string().optional(),
});
const userMessage = z.object({
  role: z.literal("user"),
  content: z.union([z.string(), z.array(userPart)]),
  name: z.string().optional(),
});
const assistantMessage = z.object({
  role: z.literal("assistant"),
  content: z.union([z.string(), z.array(z.discriminatedUnion("type", [textPart, refusalPart])), z.null()]).optional(),
  tool_calls: z.array(toolCall).optional(),
  reasoning_content: z.string().nullable().optional(),
  refusal: z.string().nullable().optional(),
  name: z.string().optional(),
});
const toolMessage = z.object({
  role: z.literal("tool"),
  tool_call_id: z.string().min(1),
  content: z.union([z.string(), z.array(textPart)]),
});

export const chatMessageSchema = z.discriminatedUnion("role", [systemMessage, userMessage, assistantMessage, toolMessage]);

const functionTool = z.object({
  type: z.literal("function"),
  function: z.object({
    // Any name: one a provider refuses (`fs.read` for OpenAI and Anthropic) is renamed for it and
    // mapped back in the answer (adapters' function-name maps).
    name: z.string().min(1).max(256),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

const toolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.object({ type: z.literal("function"), function: z.object({ name: z.string().min(1) }) }),
]);

const responseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    json_schema: z.object({
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullable().optional(),
    }),
  }),
]);

/**
 * OpenAI fields the gateway has no neutral meaning for: checked for shape here, then sent as they
 * are to OpenAI-protocol providers (`openaiFields`). Fields whose answer would need translating
 * back (logprobs, audio output) are not among them.
 */
export const openaiPassThroughFields = {
  frequency_penalty: z.number().min(-2).max(2).nullable().optional(),
  presence_penalty: z.number().min(-2).max(2).nullable().optional(),
  logit_bias: z.record(z.string(), z.number().min(-100).max(100)).nullable().optional(),
  service_tier: z.string().nullable().optional(),
  store: z.boolean().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  prediction: z.object({ type: z.literal("content"), content: z.unknown() }).nullable().optional(),
  verbosity: z.enum(["low", "medium", "high"]).nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
};

export const chatCompletionRequestSchema = z.object({
  ...openaiPassThroughFields,
  model: z.string().min(1),
  messages: z.array(chatMessageSchema).min(1),
  tools: z.array(functionTool).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  max_tokens: z.number().int().positive().nullable().optional(),
  max_completion_tokens: z.number().int().positive().nullable().optional(),
  stop: z.union([z.string(), z.array(z.string()).max(4)]).nullable().optional(),
  response_format: responseFormat.optional(),
  seed: z.number().int().nullable().optional(),
  user: z.string().optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullable().optional(),
  reasoning_effort: z.enum(REASONING_EFFORTS).nullable().optional(),
  n: z.literal(1, { message: "only n=1 is supported" }).nullable().optional(),
  // Refused rather than ignored: a client that asks for them would get `logprobs: null` back.
  logprobs: z.literal(false, { message: "logprobs are not supported" }).nullable().optional(),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatMessageInput = z.infer<typeof chatMessageSchema>;
