/**
 * The config fields that steer the agent loop for long conversations and large tool sets:
 * context compaction, tool search, model capabilities and tool policies (per alias, and as the
 * gateway's defaults). Kept apart from schema.ts, which imports them.
 */
import { z } from "zod";

/** `context`: compaction of long conversations before each model call. */
export const contextSchema = z.strictObject({
  /** The context budget in tokens (default: the model's `capabilities.contextWindow`). */
  maxTokens: z.number().int().positive().optional(),
  /** Compact when the estimate passes this share of `maxTokens` (default 0.8). */
  threshold: z.number().gt(0).max(1).optional(),
  /** Drop the oldest turns (`trim`, default), replace them with a summary (`summarize`), or never touch the history (`off`). */
  strategy: z.enum(["trim", "summarize", "off"]).optional(),
  /** The model (`provider/model` or an alias) that writes summaries (default: the request's own). */
  summarizer: z.string().min(1).optional(),
  /** The newest user turns that always stay whole (default 2). */
  keepRecentTurns: z.number().int().min(1).optional(),
});

/** `toolSearch`: above this many tokens of MCP tool schemas, the model gets a search tool instead. */
export const toolSearchSchema = z.strictObject({
  whenOverTokens: z.number().int().min(0),
  /** How many tools one search returns at most (default 8). */
  maxResults: z.number().int().positive().max(50).optional(),
  /** Use the provider's own tool search where it has one (Anthropic's defer_loading; default true). */
  native: z.boolean().optional(),
});

/** What a model can do; unset fields are unknown (treated as able). */
export const capabilitiesSchema = z.strictObject({
  tools: z.boolean().optional(),
  vision: z.boolean().optional(),
  reasoning: z.boolean().optional(),
  contextWindow: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
});

export const TOOL_ANNOTATIONS = ["destructiveHint", "openWorldHint"] as const;

/** `toolPolicy`: tools never run, and tools that run only once someone approved the call. */
export const toolPolicySchema = z.strictObject({
  /** Exposed tool names (`*` a wildcard) that are never offered or run. */
  deny: z.array(z.string().min(1)).optional(),
  approve: z
    .strictObject({
      /** Exposed tool names (`*` a wildcard) whose calls need approval. */
      names: z.array(z.string().min(1)).optional(),
      /** MCP annotations that, set to true by the server, make a call need approval. */
      annotations: z.array(z.enum(TOOL_ANNOTATIONS)).optional(),
    })
    .optional(),
});

/** The loop fields of a model alias. */
export const aliasLoopFields = {
  /** Model turns per request for this alias (default gateway.maxIterations). */
  maxIterations: z.number().int().positive().optional(),
  /** When the turns run out with tool calls pending: one more call without tools for an answer. */
  finalAnswer: z.boolean().optional(),
  context: contextSchema.optional(),
  toolSearch: toolSearchSchema.optional(),
  capabilities: capabilitiesSchema.optional(),
  toolPolicy: toolPolicySchema.optional(),
  /** "plan": plan, then run each step, then summarize (src/loop/plan-mode.ts); default "agent". */
  mode: z.enum(["agent", "plan"]).optional(),
};

/** The loop fields of `gateway` (defaults for every alias and `provider/model`). */
export const gatewayLoopFields = {
  finalAnswer: z.boolean().optional(),
  context: contextSchema.optional(),
  toolSearch: toolSearchSchema.optional(),
  toolPolicy: toolPolicySchema.optional(),
  /** Tool results larger than this are cut, with a note the model can act on (default 25000; servers may set their own). */
  maxResultTokens: z.number().int().positive().optional(),
};

/** `providers.<name>.capabilities`: per model-name pattern (`*` a wildcard), most specific first. */
export const providerCapabilitiesSchema = z.record(z.string().min(1), capabilitiesSchema);

export type ContextConfig = z.infer<typeof contextSchema>;
export type ToolSearchConfig = z.infer<typeof toolSearchSchema>;
export type CapabilitiesConfig = z.infer<typeof capabilitiesSchema>;
export type ToolPolicyConfig = z.infer<typeof toolPolicySchema>;

/** Known keys of the loop fields' nested objects, for "did you mean" (`rest` is the path after the alias or `gateway`). */
export function loopKeysAt(rest: readonly PropertyKey[]): readonly string[] | undefined {
  const [field, inner] = rest;
  if (field === "context" && rest.length === 1) return Object.keys(contextSchema.shape);
  if (field === "toolSearch" && rest.length === 1) return Object.keys(toolSearchSchema.shape);
  if (field === "capabilities" && rest.length === 1) return Object.keys(capabilitiesSchema.shape);
  if (field === "toolPolicy" && rest.length === 1) return Object.keys(toolPolicySchema.shape);
  if (field === "toolPolicy" && inner === "approve" && rest.length === 2) return ["names", "annotations"];
  return undefined;
}
