/**
 * The OpenAI Responses request as the gateway accepts it. The fields and item types the gateway
 * reads are validated (a bad one is a 400 naming its JSON path); item and tool types it does not
 * know are kept as sent, for a Responses upstream, or left out with a warning.
 */
import { z } from "zod";
import { REASONING_EFFORTS } from "../../shared/neutral-helpers.ts";

const inputText = z.looseObject({ type: z.literal("input_text"), text: z.string() });
const inputImage = z.looseObject({
  type: z.literal("input_image"),
  image_url: z.string().min(1).nullable().optional(),
  file_id: z.string().nullable().optional(),
  detail: z.enum(["auto", "low", "high"]).nullable().optional(),
});
const inputFile = z.looseObject({
  type: z.literal("input_file"),
  file_data: z.string().nullable().optional(),
  file_id: z.string().nullable().optional(),
  file_url: z.string().nullable().optional(),
  filename: z.string().nullable().optional(),
});
const outputText = z.looseObject({ type: z.literal("output_text"), text: z.string() });
const refusal = z.looseObject({ type: z.literal("refusal"), refusal: z.string() });

const contentPart = z.discriminatedUnion("type", [inputText, inputImage, inputFile, outputText, refusal]);

/** A message item; `type` may be left out (the "easy" form `{role, content}`). */
const message = z.looseObject({
  type: z.literal("message").optional(),
  role: z.enum(["user", "assistant", "system", "developer"]),
  content: z.union([z.string(), z.array(contentPart)]),
  id: z.string().optional(),
});

const outputParts = z.union([z.string(), z.array(z.discriminatedUnion("type", [inputText, inputImage, inputFile]))]);

const functionCall = z.looseObject({
  type: z.literal("function_call"),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  namespace: z.string().optional(),
});
const functionCallOutput = z.looseObject({ type: z.literal("function_call_output"), call_id: z.string().min(1), output: outputParts });
const customToolCall = z.looseObject({ type: z.literal("custom_tool_call"), call_id: z.string().min(1), name: z.string().min(1), input: z.string() });
const customToolCallOutput = z.looseObject({ type: z.literal("custom_tool_call_output"), call_id: z.string().min(1), output: outputParts });
const reasoning = z.looseObject({
  type: z.literal("reasoning"),
  id: z.string().optional(),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).optional(),
  encrypted_content: z.string().nullable().optional(),
});
const toolSearchCall = z.looseObject({ type: z.literal("tool_search_call"), call_id: z.string().min(1), arguments: z.unknown().optional() });
const toolSearchOutput = z.looseObject({ type: z.literal("tool_search_output"), call_id: z.string().min(1), tools: z.array(z.looseObject({ type: z.string() })) });
const mcpApprovalRequest = z.looseObject({ type: z.literal("mcp_approval_request"), id: z.string().min(1), server_label: z.string(), name: z.string(), arguments: z.string() });
const mcpApprovalResponse = z.looseObject({ type: z.literal("mcp_approval_response"), approval_request_id: z.string().min(1), approve: z.boolean() });
const mcpCall = z.looseObject({
  type: z.literal("mcp_call"),
  id: z.string().min(1),
  server_label: z.string(),
  name: z.string(),
  arguments: z.string(),
  output: z.string().nullable().optional(),
  error: z.string().nullable().optional(),
});

/** The typed items: each checked by the one branch its `type` names. */
const TYPED_ITEMS = [message, functionCall, functionCallOutput, customToolCall, customToolCallOutput, reasoning, toolSearchCall, toolSearchOutput, mcpApprovalRequest, mcpApprovalResponse, mcpCall] as const;

/** Their `type` names (the message's may be left out), read from the schemas rather than listed again. */
const KNOWN_ITEM_TYPES = new Set<string>(
  TYPED_ITEMS.map((item) => {
    const type = item.shape.type;
    return (type instanceof z.ZodOptional ? type.unwrap() : type).value;
  }),
);

/** Any other item (hosted tool calls, `mcp_list_tools`, new types): kept as sent. Aborting, so a known type reports its own bad field. */
const otherItem = z.looseObject({ type: z.string().refine((type) => !KNOWN_ITEM_TYPES.has(type), { message: "this item type is checked by its own rules", abort: true }) });

/**
 * One discriminated union, the message (whose `type` may be left out) among the typed items: each
 * item is checked by the one branch its `type` names. Tried as a union of a message and the
 * typed items, each call, output and reasoning item of a long Codex history went through the whole
 * message branch, failing every field of it, before its own (220 such items: 273 against 71 µs),
 * and a bad one was reported as a bad message.
 */
export const itemSchema = z.union([
  z.discriminatedUnion("type", TYPED_ITEMS),
  otherItem,
]);

const functionTool = z.looseObject({
  type: z.literal("function"),
  name: z.string().min(1).max(256),
  description: z.string().nullable().optional(),
  parameters: z.record(z.string(), z.unknown()).nullable().optional(),
  strict: z.boolean().nullable().optional(),
  defer_loading: z.boolean().optional(),
});
const customTool = z.looseObject({
  type: z.literal("custom"),
  name: z.string().min(1).max(256),
  description: z.string().nullable().optional(),
  format: z.looseObject({ type: z.string() }).nullable().optional(),
  defer_loading: z.boolean().optional(),
});
const namespaceTool = z.looseObject({
  type: z.literal("namespace"),
  name: z.string().min(1),
  description: z.string().nullable().optional(),
  tools: z.array(z.discriminatedUnion("type", [functionTool, customTool])),
});
const approvalFilter = z.looseObject({ tool_names: z.array(z.string()).optional() });
const mcpTool = z.looseObject({
  type: z.literal("mcp"),
  server_label: z.string().min(1),
  server_url: z.string().optional(),
  connector_id: z.string().optional(),
  allowed_tools: z.union([z.array(z.string()), z.looseObject({ tool_names: z.array(z.string()).optional() })]).nullable().optional(),
  require_approval: z
    .union([z.enum(["always", "never"]), z.looseObject({ always: approvalFilter.nullable().optional(), never: approvalFilter.nullable().optional() })])
    .nullable()
    .optional(),
});
/** Codex's client-run tool search: `{type: "tool_search", execution: "client", parameters}`. */
const toolSearchTool = z.looseObject({ type: z.literal("tool_search"), execution: z.string().optional(), parameters: z.record(z.string(), z.unknown()).nullable().optional() });
/** Hosted tools (`web_search`, `file_search`, `code_interpreter`, `image_generation`, …): OpenAI runs them. */
const hostedTool = z.looseObject({
  type: z.string().refine((type) => !["function", "custom", "namespace", "mcp", "tool_search"].includes(type), { message: "this tool type is checked by its own rules", abort: true }),
});

export const toolSchema = z.union([z.discriminatedUnion("type", [functionTool, customTool, namespaceTool, mcpTool, toolSearchTool]), hostedTool]);

const toolChoice = z.union([
  z.enum(["auto", "none", "required"]),
  z.looseObject({ type: z.enum(["function", "custom"]), name: z.string().min(1) }),
  z.looseObject({ type: z.literal("mcp"), server_label: z.string(), name: z.string().nullable().optional() }),
  z.looseObject({ type: z.literal("allowed_tools"), mode: z.enum(["auto", "required"]), tools: z.array(z.looseObject({ type: z.string() })) }),
  z.looseObject({ type: z.string() }),
]);

const textFormat = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("text") }),
  z.looseObject({ type: z.literal("json_object") }),
  z.looseObject({
    type: z.literal("json_schema"),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().nullable().optional(),
  }),
]);


export const responsesRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(itemSchema)]).optional(),
  instructions: z.string().nullable().optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoice.optional(),
  parallel_tool_calls: z.boolean().nullable().optional(),
  reasoning: z.looseObject({ effort: z.enum(REASONING_EFFORTS).nullable().optional(), summary: z.string().nullable().optional() }).nullable().optional(),
  text: z.looseObject({ format: textFormat.optional(), verbosity: z.enum(["low", "medium", "high"]).nullable().optional() }).nullable().optional(),
  max_output_tokens: z.number().int().positive().nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().min(0).max(1).nullable().optional(),
  truncation: z.enum(["auto", "disabled"]).nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  prompt_cache_key: z.string().nullable().optional(),
  safety_identifier: z.string().nullable().optional(),
  user: z.string().nullable().optional(),
  service_tier: z.string().nullable().optional(),
  include: z.array(z.string()).nullable().optional(),
  store: z.boolean().nullable().optional(),
  previous_response_id: z.string().min(1).nullable().optional(),
  stream: z.boolean().nullable().optional(),
  background: z.literal(false, { message: "background responses are not supported" }).nullable().optional(),
});

export type ResponsesRequestBody = z.infer<typeof responsesRequestSchema>;
export type InputItem = z.infer<typeof itemSchema>;
export type RequestTool = z.infer<typeof toolSchema>;
export type FunctionToolSpec = z.infer<typeof functionTool>;
export type CustomToolSpec = z.infer<typeof customTool>;
export type McpToolSpec = z.infer<typeof mcpTool>;
