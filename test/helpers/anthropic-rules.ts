/**
 * A strict stand-in for Anthropic's request validation: it rejects what the real Messages API
 * rejects, with the real error texts (docs/provider-quirks.md §2 and recorded 400 bodies), so a
 * test against the fake server fails where production would. Plus a fake Anthropic server that
 * answers 400 `{type:"error",error:{type:"invalid_request_error",message}}` on a violation.
 */
import type { ServerResponse } from "node:http";
import { sendJson, sendSse, startFakeUpstream, type FakeUpstream, type Handler, type RecordedRequest } from "./fake-upstream.ts";

type Json = { [key: string]: unknown };
type Block = Json & { type?: unknown };

export interface RuleOptions {
  /**
   * Signatures this fake "issued". When given, a thinking block whose signature is not among
   * them is rejected as the real API rejects a forged or foreign one.
   */
  knownSignatures?: ReadonlySet<string>;
  /**
   * Today's API combines consecutive same-role turns before validating them (the recorded 400 of
   * f59a9391 names `messages.0.content.1` for a tool_result sent as a second user message); older
   * versions rejected them ("roles must alternate"). Strict (false) by default, since the adapter
   * must not rely on the merge.
   */
  mergeConsecutiveRoles?: boolean;
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const blocksOf = (content: unknown): Block[] => (Array.isArray(content) ? content.filter(isObject) : []);
const isBlank = (text: string): boolean => text.trim() === "";

function toolError(body: Json): string | undefined {
  if (body.tools === undefined) return undefined;
  if (!Array.isArray(body.tools)) return "tools: Input should be a valid list";
  const names = new Set<string>();
  for (const [i, tool] of body.tools.entries()) {
    if (!isObject(tool)) return `tools.${i}: Input should be a valid dictionary`;
    if (typeof tool.name !== "string" || !TOOL_NAME.test(tool.name)) {
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`;
    }
    if (names.has(tool.name)) return "tools: Tool names must be unique.";
    names.add(tool.name);
    // A server tool (web_search_20250305, tool_search_tool_bm25_20251119, …) has a type and no schema.
    if (typeof tool.type === "string" && tool.type !== "custom") continue;
    const schema = tool.input_schema;
    if (!isObject(schema)) return `tools.${i}.custom.input_schema: Field required`;
    if (schema.type === undefined) return `tools.${i}.custom.input_schema.type: Field required`;
    if (["oneOf", "allOf", "anyOf"].some((key) => key in schema)) {
      return `tools.${i}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level`;
    }
  }
  return undefined;
}

function roleError(messages: Json[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (message.role === "system") {
      return 'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.';
    }
    if (message.role !== "user" && message.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    if (i === 0 && message.role !== "user") return 'messages: first message must use the "user" role';
    if (i > 0 && messages[i - 1]?.role === message.role) {
      return `messages: roles must alternate between "user" and "assistant", but found multiple "${message.role}" roles in a row`;
    }
  }
  return undefined;
}

/** `[text:' ', text:'real']` is accepted; a message whose text is all whitespace is not. */
function textError(message: Json): string | undefined {
  if (typeof message.content === "string") {
    if (message.content === "") return "messages: text content blocks must be non-empty";
    return isBlank(message.content) ? "messages: text content blocks must contain non-whitespace text" : undefined;
  }
  const texts = blocksOf(message.content).filter((block) => block.type === "text");
  if (texts.some((block) => block.text === "")) return "messages: text content blocks must be non-empty";
  if (texts.length > 0 && texts.every((block) => typeof block.text === "string" && isBlank(block.text))) {
    return "messages: text content blocks must contain non-whitespace text";
  }
  return undefined;
}

function blockError(i: number, j: number, block: Block, options: RuleOptions): string | undefined {
  const at = `messages.${i}.content.${j}`;
  if (block.type === "tool_use") {
    if (typeof block.id !== "string" || !TOOL_USE_ID.test(block.id)) return `${at}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
    if (!isObject(block.input)) return `${at}.tool_use.input: Input should be a valid dictionary`;
  }
  if (block.type === "thinking") {
    if (typeof block.signature !== "string") return `${at}.thinking.signature: Field required`;
    const known = options.knownSignatures;
    if (block.signature === "" || (known && !known.has(block.signature))) return `${at}: Invalid \`signature\` in \`thinking\` block`;
  }
  if (block.type === "redacted_thinking" && typeof block.data !== "string") return `${at}.redacted_thinking.data: Field required`;
  return undefined;
}

function contentError(messages: Json[], options: RuleOptions): string | undefined {
  for (const [i, message] of messages.entries()) {
    const error = textError(message);
    if (error) return error;
    for (const [j, block] of blocksOf(message.content).entries()) {
      const blockErr = blockError(i, j, block, options);
      if (blockErr) return blockErr;
    }
  }
  return undefined;
}

function toolUseIds(message: Json | undefined): string[] {
  if (message?.role !== "assistant") return [];
  return blocksOf(message.content).flatMap((block) => (block.type === "tool_use" && typeof block.id === "string" ? [block.id] : []));
}

function leadingResultIds(message: Json | undefined): string[] {
  const ids: string[] = [];
  for (const block of blocksOf(message?.content)) {
    if (block.type !== "tool_result") break;
    ids.push(String(block.tool_use_id));
  }
  return ids;
}

/** Every tool_use is answered at the start of the next message; every tool_result answers the previous one. */
function pairingError(messages: Json[]): string | undefined {
  for (const [i, message] of messages.entries()) {
    if (message.role === "user") {
      const calls = new Set(toolUseIds(messages[i - 1]));
      for (const [j, block] of blocksOf(message.content).entries()) {
        if (block.type === "tool_result" && !calls.has(String(block.tool_use_id))) {
          return `messages.${i}.content.${j}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
      }
    }
    const ids = toolUseIds(message);
    const next = messages[i + 1];
    if (ids.length === 0 || next === undefined) continue;
    const leading = new Set(leadingResultIds(next));
    const missing = ids.filter((id) => !leading.has(id));
    if (missing.length === 0) continue;
    const anywhere = new Set(blocksOf(next.content).flatMap((block) => (block.type === "tool_result" ? [String(block.tool_use_id)] : [])));
    if (missing.every((id) => anywhere.has(id))) {
      return `messages.${i + 1}: Did not find ${ids.length} \`tool_result\` block(s) at the beginning of this message. Messages following \`tool_use\` blocks must begin with a matching number of \`tool_result\` blocks.`;
    }
    return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return undefined;
}

function firstBlockType(message: Json | undefined): unknown {
  return typeof message?.content === "string" ? "text" : blocksOf(message?.content)[0]?.type;
}

function thinkingError(body: Json, messages: Json[]): string | undefined {
  const thinking = body.thinking;
  if (!isObject(thinking) || thinking.type !== "enabled") return undefined;
  const budget = Number(thinking.budget_tokens);
  if (!(budget >= 1024)) return "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024";
  if (!(Number(body.max_tokens) > budget)) return "`max_tokens` must be greater than `thinking.budget_tokens`.";
  if (body.temperature !== undefined && body.temperature !== 1) return "`temperature` may only be set to 1 when thinking is enabled.";
  const choice = body.tool_choice;
  if (isObject(choice) && (choice.type === "any" || choice.type === "tool")) return "Thinking may not be enabled when tool_choice forces tool use.";
  // Mid tool loop, the assistant turn before the results must open with its thinking block.
  const last = messages.at(-1);
  const previous = messages.at(-2);
  if (last?.role === "user" && previous?.role === "assistant" && firstBlockType(last) === "tool_result") {
    const first = firstBlockType(previous);
    if (first !== "thinking" && first !== "redacted_thinking") {
      return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
    }
  }
  return undefined;
}

function trailingWhitespaceError(messages: Json[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role !== "assistant") return undefined;
  const text = typeof last.content === "string" ? last.content : blocksOf(last.content).at(-1)?.text;
  return typeof text === "string" && /\s$/.test(text) ? "messages: final assistant content cannot end with trailing whitespace" : undefined;
}

function mergeRoles(messages: Json[]): Json[] {
  const asBlocks = (content: unknown): unknown[] => (typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : []);
  const merged: Json[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role) last.content = [...asBlocks(last.content), ...asBlocks(message.content)];
    else merged.push({ ...message });
  }
  return merged;
}

/** The first violation as the real API words it, or undefined when Anthropic would accept the body. */
export function anthropicRequestError(body: unknown, options: RuleOptions = {}): string | undefined {
  if (!isObject(body)) return "Input should be a valid dictionary";
  if (typeof body.model !== "string") return "model: Field required";
  if (typeof body.max_tokens !== "number") return "max_tokens: Field required";
  if (!Array.isArray(body.messages)) return "messages: Field required";
  if (body.messages.length === 0) return "messages: at least one message is required";
  const given = body.messages.filter(isObject);
  const messages = options.mergeConsecutiveRoles ? mergeRoles(given) : given;
  return (
    toolError(body) ??
    roleError(messages) ??
    contentError(messages, options) ??
    pairingError(messages) ??
    thinkingError(body, messages) ??
    trailingWhitespaceError(messages)
  );
}

export function sendAnthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: "error", error: { type, message } });
}

/** Wraps a responder: only requests Anthropic would accept reach it. */
export function anthropicHandler(respond: Handler, options: RuleOptions = {}): Handler {
  return (req: RecordedRequest, res: ServerResponse) => {
    if (req.method !== "POST" || req.path.split("?")[0] !== "/v1/messages") {
      return sendAnthropicError(res, 404, "not_found_error", `Not found: ${req.method} ${req.path}`);
    }
    const violation = anthropicRequestError(req.body, options);
    if (violation) return sendAnthropicError(res, 400, "invalid_request_error", violation);
    return respond(req, res);
  };
}

export function startFakeAnthropic(respond: Handler, options: RuleOptions = {}): Promise<FakeUpstream> {
  return startFakeUpstream(anthropicHandler(respond, options));
}

/** Frames event payloads as an Anthropic SSE body (an `event:` line named after each payload's type). */
export function anthropicSse(events: Json[]): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

/** Answers with a JSON Message or, for `stream: true` requests, the same message as an SSE stream. */
export function replyWith(message: Json): Handler {
  return (req, res) => (req.body?.stream ? sendSse(res, anthropicSse(messageAsEvents(message))) : sendJson(res, 200, message));
}

/** A complete Message as the stream of events the API would send for it. */
export function messageAsEvents(message: Json): Json[] {
  const content = blocksOf(message.content);
  const usage = isObject(message.usage) ? message.usage : {};
  const events: Json[] = [{ type: "message_start", message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }];
  for (const [index, block] of content.entries()) events.push(...blockEvents(index, block));
  events.push({ type: "message_delta", delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
  events.push({ type: "message_stop" });
  return events;
}

function blockEvents(index: number, block: Block): Json[] {
  const delta = (payload: Json): Json => ({ type: "content_block_delta", index, delta: payload });
  const start = (content_block: Json): Json => ({ type: "content_block_start", index, content_block });
  const stop = { type: "content_block_stop", index };
  switch (block.type) {
    case "text":
      return [start({ type: "text", text: "" }), delta({ type: "text_delta", text: block.text }), stop];
    case "thinking":
      return [
        start({ type: "thinking", thinking: "", signature: "" }),
        delta({ type: "thinking_delta", thinking: block.thinking }),
        delta({ type: "signature_delta", signature: block.signature }),
        stop,
      ];
    case "tool_use":
      return [start({ ...block, input: {} }), delta({ type: "input_json_delta", partial_json: JSON.stringify(block.input) }), stop];
    default:
      return [start(block), stop];
  }
}
