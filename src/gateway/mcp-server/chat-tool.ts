/**
 * The agent tool `chat`: runs the gateway's agent loop on a configured model with the gateway's
 * MCP tools, and returns the final answer as text, with the turns, the tool calls and the usage
 * as structured content. Progress notifications (when the client sent a progress token) mark
 * each turn and each tool call. A run ends at `gateway.requestTimeoutMs` (as a /v1 request does),
 * and `mcpServers` can narrow an alias's own server selection, never widen it. A `conversation`
 * goes on from its stored history (chat-conversation.ts), and `steer` reaches its run.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { GatewayError, type ChatRequest, type Message } from "../../core/index.ts";
import type { GatewayTools } from "../shared/deps.ts";
import type { KeyLimits } from "../shared/key-limits.ts";
import { hasLimits, modelAllowed, modelRefusal, serversOutside, serversRefusal, type KeyPolicy } from "../shared/keys.ts";
import { SKIPPED_FOR_STEERING, type LoopEvent, type LoopOutcome, type PlanReport } from "../../loop/index.ts";
import { openConversation, type ConversationDeps, type OpenConversation } from "./chat-conversation.ts";
import { applyPlan, loopOptionsFor, planLoop, resultLimits } from "../shared/loop-setup.ts";
import type { ToolHints } from "../shared/tool-policy.ts";
import { elicitingApprovals, type Elicit } from "./approval.ts";
import { progressTokenOf } from "./forward.ts";
import { elicitingReview, planProgress } from "./plan-review.ts";
import { resolve, runLoop, type ModelDeps } from "./model-runner.ts";
import type { ResolvedModel } from "../routing/resolve-model.ts";
import { CONVERSATION_ID } from "./steer-tool.ts";
import type { RequestExtra } from "./types.ts";

export const CHAT_TOOL_NAME = "chat";

export interface ChatToolDeps extends ModelDeps {
  /** Narrowed to the key's servers when the session's key has `mcpServers`. */
  tools: GatewayTools;
  /** The policy of the session's gateway key: its models, and its rpm/tpm through `limits`. */
  key?: KeyPolicy;
  limits?: KeyLimits;
  /** Where conversations are kept, and the runs going on (for `steer`). */
  conversations?: ConversationDeps;
  /** The MCP annotations of a gateway tool, for the tool policy. */
  toolHints?: (name: string) => ToolHints | undefined;
  /** Asks the client (a form elicitation) to approve a call the tool policy holds; absent when it cannot be asked. */
  elicit?: Elicit;
}

/** The models the tool offers: every alias and provider, or the key's model patterns. */
function offeredModels(deps: ChatToolDeps): string[] {
  if (deps.key?.models !== undefined) return [...deps.key.models];
  return [...Object.keys(deps.config.models), ...[...deps.providers.keys()].map((p) => `${p}/…`)];
}

/** Whether the alias "default" is configured and the key may use it. */
function hasDefault(deps: ChatToolDeps): boolean {
  return Object.hasOwn(deps.config.models, "default") && modelAllowed(deps.key, "default");
}

const inputSchema = z.strictObject({
  prompt: z.string().min(1),
  model: z.string().min(1).optional(),
  system: z.string().optional(),
  mcpServers: z.array(z.string()).optional(),
  conversation: CONVERSATION_ID.optional(),
  mode: z.enum(["agent", "plan"]).optional(),
  reviewPlan: z.boolean().optional(),
});

export type ChatToolInput = z.infer<typeof inputSchema>;

export interface ChatToolOutput {
  [key: string]: unknown;
  model: string;
  stopReason: LoopOutcome["stopReason"];
  turns: number;
  toolCalls: { name: string; durationMs: number; isError: boolean }[];
  usage: LoopOutcome["usage"];
  /** The conversation id to continue with (the one given, or a new one). */
  conversation?: string;
  /** Messages sent with `steer` while this call ran, as the agent got them. */
  delivered?: { kind: "steer" | "follow_up"; text: string }[];
  /** Plan mode: the plan's steps, each with its status and result. */
  plan?: PlanReport;
}

const usageSchema = {
  type: "object",
  properties: {
    inputTokens: { type: "integer" },
    outputTokens: { type: "integer" },
    cacheReadTokens: { type: "integer" },
    cacheWriteTokens: { type: "integer" },
    reasoningTokens: { type: "integer" },
  },
  required: ["inputTokens", "outputTokens"],
};

export function chatToolDefinition(deps: ChatToolDeps): Tool {
  const servers = deps.tools.serverNames();
  const withDefault = hasDefault(deps);
  return {
    name: CHAT_TOOL_NAME,
    title: "Chat with a model (agent loop)",
    description:
      "Sends a prompt to a language model configured in the gateway and lets it use the gateway's MCP tools " +
      "(an agent loop: the model calls tools, sees their results, and answers). Returns the final answer; " +
      "structured content lists the turns, the tool calls and the token usage.",
    inputSchema: {
      type: "object",
      properties: {
        prompt: { type: "string", description: "What to ask the model." },
        model: {
          type: "string",
          description: `"provider/model" or a model alias of the gateway (${offeredModels(deps).join(", ")}).${withDefault ? ' Default: the alias "default".' : " Required: no default alias is configured."}`,
        },
        system: { type: "string", description: "A system prompt for the model." },
        mcpServers: {
          type: "array",
          items: { type: "string", ...(servers.length > 0 ? { enum: servers } : {}) },
          description: "The MCP servers whose tools the model may use (default: the alias's selection, else all); with an alias, only servers of its selection.",
        },
        mode: {
          type: "string",
          enum: ["agent", "plan"],
          description:
            'agent (default, unless the alias says otherwise): the model calls tools until it answers. plan: it writes a plan first, then carries out each step, re-plans once if a step fails, and answers from the results; progress notifications show the plan and each step\'s status.',
        },
        reviewPlan: { type: "boolean", description: "plan mode: ask the user (an elicitation) to confirm or edit the plan before it runs, when the client can be asked (default true)." },
        conversation: {
          type: "string",
          description:
            "Continue this conversation (its earlier prompts, tool calls and answers are kept by the gateway); a new id starts one. " +
            "Without it a new conversation starts; its id comes back in the structured content. While a call runs, `steer` can send it a message.",
        },
      },
      required: ["prompt"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        model: { type: "string", description: "The model name the loop ran on, as requested." },
        stopReason: { type: "string", description: "Why the loop stopped: stop, max_iterations, length, content_filter, cancelled (plan mode: the user declined the plan)." },
        turns: { type: "integer", description: "Model calls made." },
        toolCalls: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: "string" }, durationMs: { type: "number" }, isError: { type: "boolean" } },
            required: ["name", "durationMs", "isError"],
          },
        },
        usage: usageSchema,
        conversation: { type: "string", description: "The conversation's id: pass it to continue, or to steer." },
        plan: {
          type: "object",
          description: "Plan mode: the steps ({ id, title, status: done | failed | skipped, result }) and whether a failed step led to a new plan (replanned).",
          properties: { steps: { type: "array", items: { type: "object" } }, replanned: { type: "boolean" } },
        },
        delivered: {
          type: "array",
          description: "Messages sent with steer during this call, as the agent got them.",
          items: { type: "object", properties: { kind: { type: "string", enum: ["steer", "follow_up"] }, text: { type: "string" } }, required: ["kind", "text"] },
        },
      },
      required: ["model", "stopReason", "turns", "toolCalls", "usage"],
    },
    annotations: { title: "Chat with a model (agent loop)", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

function answerText(outcome: LoopOutcome): string {
  const text = outcome.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  if (text !== "") return text;
  return outcome.stopReason === "max_iterations"
    ? `(no answer: the agent loop stopped after ${outcome.turns} turns, still calling tools)`
    : "(the model returned no text)";
}

/** Runs the tool; failures of the request or the model come back as an `isError` result. */
export async function runChatTool(args: unknown, deps: ChatToolDeps, extra: RequestExtra, params: unknown): Promise<CallToolResult> {
  const parsed = inputSchema.safeParse(args ?? {});
  if (!parsed.success) {
    return errorResult(`Invalid arguments for chat: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`);
  }
  const input = parsed.data;
  const modelName = input.model ?? (hasDefault(deps) ? "default" : undefined);
  if (modelName === undefined) {
    const known = offeredModels(deps).map((name) => name.replace(/\/…$/, "/<model>"));
    return errorResult(`No model given and no "default" model alias is configured: pass "model" (one of: ${known.join(", ") || "none configured"}).`);
  }
  if (deps.key && !modelAllowed(deps.key, modelName)) return errorResult(`Error: ${modelRefusal(deps.key, modelName)}`);
  let model;
  try {
    model = await resolve(modelName, deps);
  } catch (error) {
    return errorResult(`Error: ${error instanceof Error ? error.message : String(error)}`);
  }
  const known = deps.tools.serverNames();
  const requested = input.mcpServers === undefined ? undefined : [...new Set(input.mcpServers)];
  const notTheKeys = deps.key ? serversOutside(deps.key, requested ?? []) : [];
  if (deps.key && notTheKeys.length > 0) return errorResult(`Error: ${serversRefusal(deps.key, notTheKeys)}`);
  const unknown = (requested ?? []).filter((s) => !known.includes(s));
  if (unknown.length > 0) return errorResult(`Unknown MCP servers: ${unknown.join(", ")} (configured: ${known.join(", ") || "none"})`);
  // An alias's selection is a limit: "mcpServers" may narrow it, not reach past it.
  const allowed = model.alias?.mcpServers;
  const outside = allowed ? (requested ?? []).filter((s) => !allowed.includes(s)) : [];
  if (outside.length > 0) {
    return errorResult(`MCP servers outside the selection of model "${modelName}": ${outside.join(", ")} (allowed: ${allowed!.join(", ") || "none"})`);
  }
  const servers = requested ?? allowed;
  const system = input.system ?? model.alias?.system;
  let messages: Message[] = [
    ...(system ? [{ role: "system" as const, content: [{ type: "text" as const, text: system }] }] : []),
    { role: "user", content: [{ type: "text", text: input.prompt }] },
  ];

  // A run counts against the key's rpm, and waits for its tpm window, as a /v1 request does.
  if (deps.limits && hasLimits(deps.key)) {
    const admission = await deps.limits.admit(deps.key, true);
    if (admission.refused) return errorResult(`Error: ${admission.refused.message}`);
  }

  let conversation: OpenConversation | undefined;
  if (deps.conversations) {
    // The conversation's own system prompt stays unless one is given.
    const opened = await openConversation(deps.conversations, deps.key, input.conversation, input.prompt, { given: input.system, fallback: model.alias?.system }, deps.logger);
    if (typeof opened === "string") return errorResult(opened);
    conversation = opened;
    messages = opened.messages;
  }
  let outcome: LoopOutcome | undefined;
  const delivered: NonNullable<ChatToolOutput["delivered"]> = [];
  try {
    outcome = await runConversation(deps, model, modelName, messages, servers, extra, params, conversation, delivered, input);
  } catch (error) {
    if (extra.mcpReq.signal.aborted) throw error;
    deps.logger.warn({ model: modelName, err: error instanceof Error ? error.message : String(error) }, "chat tool failed");
    return errorResult(`Error: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await conversation?.close(outcome, modelName);
  }
  await deps.limits?.record(deps.key, outcome.usage);
  const structured: ChatToolOutput = {
    model: modelName,
    stopReason: outcome.stopReason,
    turns: outcome.turns,
    toolCalls: outcome.tools.map((t) => ({ name: t.call.name, durationMs: t.durationMs, isError: t.result.isError })),
    usage: outcome.usage,
    ...(conversation ? { conversation: conversation.id } : {}),
    ...(delivered.length > 0 ? { delivered } : {}),
    ...(outcome.plan ? { plan: outcome.plan } : {}),
  };
  return { content: [{ type: "text", text: answerText(outcome) }], structuredContent: structured };
}

/** The progress message of a loop event, if it has one. */
function progressMessage(event: LoopEvent, modelName: string): string | undefined {
  switch (event.type) {
    case "turn_start":
      return `turn ${event.turn}: calling ${modelName}`;
    case "tool_start":
      return `turn ${event.turn}: running tool ${event.call.name}`;
    case "tool_end": {
      const skipped = event.result.content.some((c) => c.type === "text" && c.text === SKIPPED_FOR_STEERING);
      return `turn ${event.turn}: tool ${event.call.name} ${skipped ? "skipped (a message from the user came first)" : event.isError ? "failed" : "done"} (${event.durationMs} ms)`;
    }
    case "plan":
      return planProgress(event.plan);
    case "user_message":
      return `turn ${event.turn}: ${event.kind === "steer" ? "steering" : "follow-up"} message delivered`;
    default:
      return undefined;
  }
}

/** Runs the loop to its end within gateway.requestTimeoutMs, sending progress notifications; throws a GatewayError on failure. */
async function runConversation(
  deps: ChatToolDeps,
  model: ResolvedModel,
  modelName: string,
  messages: Message[],
  servers: readonly string[] | undefined,
  extra: RequestExtra,
  params: unknown,
  conversation: OpenConversation | undefined,
  /** Filled with the messages `steer` sent, as they reach the agent. */
  delivered: NonNullable<ChatToolOutput["delivered"]>,
  input: Pick<ChatToolInput, "mode" | "reviewPlan">,
): Promise<LoopOutcome> {
  const request: ChatRequest = {
    model: model.modelId,
    messages,
    ...(model.alias?.temperature === undefined ? {} : { temperature: model.alias.temperature }),
    ...(model.alias?.maxTokens === undefined ? {} : { maxTokens: model.alias.maxTokens }),
  };
  // The model's capabilities, the alias's turns and compaction, the tool policy: as for a /v1 request.
  const plan = planLoop(deps.config, model, input.mode ? { mode: input.mode } : {}, deps.key);
  const fitted = applyPlan(plan, model, request, deps.tools.select(servers), {}, resultLimits(deps.config, deps.tools));

  const token = progressTokenOf(params);
  let step = 0;
  const progress = (message: string) => {
    if (token === undefined) return;
    extra.mcpReq.notify({ method: "notifications/progress", params: { progressToken: token, progress: ++step, message } }).catch(() => undefined);
  };

  // The whole run (every turn and tool call) ends at gateway.requestTimeoutMs, as a /v1 request does.
  const timeoutMs = deps.config.gateway.requestTimeoutMs;
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new GatewayError(`The chat run took longer than ${timeoutMs} ms (gateway.requestTimeoutMs)`, { status: 504, type: "timeout_error", code: "request_timeout" })),
    Math.min(timeoutMs, 2_147_483_647),
  );
  const signal = AbortSignal.any([extra.mcpReq.signal, deadline.signal]);
  let outcome: LoopOutcome | undefined;
  try {
    const options = loopOptionsFor(plan, model, fitted.tools, deps, "", { ask: elicitingApprovals(deps.elicit, signal) });
    const review = plan.mode === "plan" && input.reviewPlan !== false ? elicitingReview(deps.elicit, signal) : undefined;
    const loop = runLoop(model, fitted.request, fitted.tools, deps, signal, conversation?.steering, options, { mode: plan.mode, ...(review ? { plan: { review } } : {}) });
    for await (const event of loop) {
      const message = progressMessage(event, modelName);
      if (message !== undefined) progress(message);
      if (event.type === "user_message") delivered.push({ kind: event.kind, text: event.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") });
      if (event.type === "done") outcome = event.outcome;
    }
  } catch (error) {
    // The deadline's own error says what happened better than the cancelled call's.
    throw deadline.signal.aborted && !extra.mcpReq.signal.aborted ? deadline.signal.reason : error;
  } finally {
    clearTimeout(timer);
  }
  if (!outcome) throw deadline.signal.aborted ? deadline.signal.reason : new Error("the agent loop ended without an outcome");
  return outcome;
}
