/**
 * A Messages request (validated) as the neutral request, with the client's own request kept
 * beside it for a faithful pass-through to Anthropic upstreams.
 */
import type {
  ChatRequest,
  Message,
  MessagePassthrough,
  ReasoningEffort,
  ReasoningOptions,
  RequestPassthrough,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
} from "../../../core/index.ts";
import { isSet } from "../../shared/neutral-helpers.ts";
import { assistantContent, toolResult, userContent, type Dropped } from "./content.ts";
import { isCustomTool, type CountTokensBody, type WireBlock, type WireMessage } from "./request-schema.ts";
import { isGatewaySignature } from "./signatures.ts";
import { deferredTools } from "./tool-search.ts";
import { flatMapped } from "../../../core/flat-mapped.ts";

export const PROTOCOL = "anthropic-messages";

/** The headers of Anthropic's protocol that travel with the request to Anthropic upstreams. */
const FORWARDED_HEADERS = ["anthropic-version", "anthropic-beta"] as const;

export interface NeutralMessages {
  request: Omit<ChatRequest, "model">;
  /** Anthropic server tools the client offered (by name): only Anthropic can run them. */
  serverTools: string[];
  /** Block types the neutral model could not hold. */
  dropped: Dropped;
}

const blocksOf = (content: WireMessage["content"]): WireBlock[] => (typeof content === "string" ? [{ type: "text", text: content }] : content);

/** Thinking that the gateway signed means nothing to Anthropic (it would refuse the signature): taken out of the copy it is sent. */
function withoutGatewayThinking(message: WireMessage): WireMessage {
  if (message.role !== "assistant" || typeof message.content === "string") return message;
  const content = message.content.filter(
    (block) => !(block.type === "thinking" && isGatewaySignature(String(block["signature"]))) && !(block.type === "redacted_thinking" && isGatewaySignature(String(block["data"]))),
  );
  return content.length === message.content.length ? message : { ...message, content };
}

/**
 * One client message as neutral messages. A user message holding tool results becomes a tool
 * message and, for the rest, a user message; the client's copy rides on the first, and the
 * second is marked as part of it (a passthrough without a message of its own).
 */
function toMessages(message: WireMessage, names: Map<string, string>, dropped: Dropped): Message[] {
  const whole: MessagePassthrough = { protocol: PROTOCOL, message: withoutGatewayThinking(message) };
  const part: MessagePassthrough = { protocol: PROTOCOL };
  const blocks = blocksOf(message.content);
  switch (message.role) {
    case "system":
      return [{ role: "system", content: flatMapped(blocks, (b) => (b.type === "text" ? [{ type: "text" as const, text: String(b["text"]) }] : [])), passthrough: whole }];
    case "assistant": {
      const content = assistantContent(blocks);
      for (const block of content) if (block.type === "tool_call") names.set(block.id, block.name);
      return [{ role: "assistant", content, passthrough: whole }];
    }
    case "user": {
      const results = flatMapped(blocks, (b) => (b.type === "tool_result" ? [toolResult(b as Extract<WireBlock, { type: "tool_result" }>, names, dropped)] : []));
      const rest = userContent(blocks, dropped);
      const out: Message[] = [];
      if (results.length > 0) out.push({ role: "tool", content: results, passthrough: whole });
      if (rest.length > 0 || results.length === 0) out.push({ role: "user", content: rest, passthrough: results.length > 0 ? part : whole });
      return out;
    }
  }
}

function systemMessage(system: CountTokensBody["system"]): Message[] {
  if (system === undefined) return [];
  const content = typeof system === "string" ? [{ type: "text" as const, text: system }] : system.map((block) => ({ type: "text" as const, text: block.text }));
  return [{ role: "system", content, passthrough: { protocol: PROTOCOL } }];
}

export function toNeutralMessages(body: CountTokensBody, dropped: Dropped): Message[] {
  const names = new Map<string, string>();
  return [...systemMessage(body.system), ...flatMapped(body.messages, (message) => toMessages(message, names, dropped))];
}

function clientTools(body: CountTokensBody): ToolDefinition[] {
  const deferred = deferredTools(body);
  return (body.tools ?? []).filter(isCustomTool).map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: tool.input_schema,
    ...(deferred.has(tool.name) ? { deferred: true } : {}),
  }));
}

function toolChoice(choice: CountTokensBody["tool_choice"]): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (choice === undefined) return {};
  const serial = "disable_parallel_tool_use" in choice && choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (choice.type) {
    case "auto":
      return { toolChoice: { type: "auto" }, ...serial };
    case "any":
      return { toolChoice: { type: "required" }, ...serial };
    case "tool":
      return { toolChoice: { type: "tool", name: choice.name }, ...serial };
    case "none":
      return { toolChoice: { type: "none" } };
  }
}

/** A thinking budget as OpenAI-style effort, for providers that take effort only. */
function effortForBudget(budget: number): ReasoningEffort {
  if (budget < 4096) return "low";
  return budget < 16384 ? "medium" : "high";
}

/**
 * Anthropic's `thinking` (and `output_config.effort`) as the neutral reasoning switch. Marked as
 * translated: Claude Code asks every model to think, and a model that cannot must not get a
 * reasoning field it refuses.
 */
function reasoning(body: CountTokensBody): ReasoningOptions | undefined {
  const effort = body.output_config?.effort ?? undefined;
  switch (body.thinking?.type) {
    case "enabled":
      return { budgetTokens: body.thinking.budget_tokens, effort: effort ?? effortForBudget(body.thinking.budget_tokens), translated: true };
    case "adaptive":
      return { effort: effort ?? "medium", translated: true };
    case "disabled":
      return { effort: "none", translated: true };
    default:
      return effort ? { effort, translated: true } : undefined;
  }
}

function responseFormat(body: CountTokensBody): ResponseFormat | undefined {
  const format = body.output_config?.format;
  return format ? { type: "json_schema", name: "output", schema: format.schema } : undefined;
}

function passthroughOf(body: CountTokensBody, headers: (name: string) => string | undefined): RequestPassthrough {
  const { model: _model, messages: _messages, tools, stream: _stream, ...rest } = body as CountTokensBody & { stream?: unknown };
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers(name);
    if (value !== undefined && value !== "") forwarded[name] = value;
  }
  return { protocol: PROTOCOL, body: rest, tools: (tools ?? []) as RequestPassthrough["tools"], headers: forwarded };
}


export function toNeutralRequest(body: CountTokensBody & { max_tokens?: number }, headers: (name: string) => string | undefined): NeutralMessages {
  const dropped: Dropped = new Set();
  // Only what the client set, by assignment in this order: a literal with a spread inside, then
  // a copy without the unset fields, cost a Messages request about 1 µs more than the chat door's
  // whole conversion on Node 20 (src/core/extend.ts).
  const request: Omit<ChatRequest, "model"> = { messages: toNeutralMessages(body, dropped) };
  const tools = clientTools(body);
  if (tools.length > 0) request.tools = tools;
  const choice = toolChoice(body.tool_choice);
  if (choice.toolChoice) request.toolChoice = choice.toolChoice;
  if (choice.parallelToolCalls !== undefined) request.parallelToolCalls = choice.parallelToolCalls;
  if (isSet(body.temperature)) request.temperature = body.temperature;
  if (isSet(body.top_p)) request.topP = body.top_p;
  if (isSet(body.max_tokens)) request.maxTokens = body.max_tokens;
  if (body.stop_sequences?.length) request.stop = body.stop_sequences;
  const user = body.metadata?.user_id;
  if (isSet(user)) request.user = user;
  const thinking = reasoning(body);
  if (thinking) request.reasoning = thinking;
  const format = responseFormat(body);
  if (format) request.responseFormat = format;
  request.passthrough = passthroughOf(body, headers);
  const serverTools = (body.tools ?? []).filter((tool) => !isCustomTool(tool)).map((tool) => tool.name);
  return { request, serverTools, dropped };
}
