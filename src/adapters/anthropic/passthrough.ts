/**
 * The faithful pass-through for clients that speak Anthropic's own protocol (the Messages front
 * door): what the client sent reaches Anthropic unchanged — its messages, system blocks,
 * `cache_control`, server tools, `thinking`, `output_config`, `context_management`, beta
 * headers and fields the gateway does not know — except the gateway's tools, added beside the
 * client's, and the turns the gateway runs, converted from the neutral model as usual.
 */
import type { ChatRequest, Message, RequestPassthrough } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import { setOwn } from "../../core/json-object.ts";
import type { AdapterOptions } from "../types.ts";
import { toTurn } from "./messages.ts";
import { toWireParams } from "./to-request.ts";
import { toWireTools, withToolSearch } from "./tools.ts";
import type { ContentBlockParam, MessageParam, WireParams } from "./wire.ts";

/** The beta under which `thinking.block_binding` exists; without it Anthropic refuses the field. */
const BLOCK_BINDING_BETA = "thinking-binding-controls-2026-08-01";

type WireMessage = { role: string; content: unknown };

const isPassthrough = (message: Message) => message.passthrough?.protocol === "anthropic-messages";

function contentBlocks(content: unknown): ContentBlockParam[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...(content as ContentBlockParam[])];
}

/**
 * The client's messages as sent; the gateway's turns (hidden steps, MCP results) converted and
 * merged into a neighbour of the same role, as Anthropic wants roles to alternate. The client's
 * top-level system prompt travels in the body, not here; a system prompt the gateway added (an
 * alias's) goes there too.
 */
export function passthroughMessages(messages: Message[], origin: string): WireMessage[] {
  const out: WireMessage[] = [];
  // The turns the gateway made: merged with a neighbour of the same role. The client's own
  // messages next to each other stay as it sent them (Anthropic combines those itself).
  const made = new WeakSet<WireMessage>();
  const push = (message: WireMessage, ours: boolean) => {
    const last = out.at(-1);
    if (last && last.role === message.role && (ours || made.has(last))) {
      // A new object: the client's message is never changed in place.
      const merged = { role: last.role, content: [...contentBlocks(last.content), ...contentBlocks(message.content)] };
      made.add(merged);
      out[out.length - 1] = merged;
      return;
    }
    if (ours) made.add(message);
    out.push(message);
  };
  for (const message of messages) {
    if (isPassthrough(message)) {
      if (message.passthrough?.message) push(message.passthrough.message as WireMessage, false);
      continue;
    }
    const turn = toTurn(message, origin);
    if (turn && turn.content.length > 0) push({ role: turn.role, content: turn.content }, true);
  }
  return out;
}

/** A forced tool choice is relaxed to `auto` after the first turn, as the loop asks (it would loop forever). */
function toolChoice(request: ChatRequest, sent: unknown, toolCount: number): unknown {
  if (sent === undefined || toolCount === 0) return undefined;
  const choice = sent as { type?: string; disable_parallel_tool_use?: boolean };
  if (request.toolChoice?.type === "auto" && (choice.type === "any" || choice.type === "tool")) {
    return { type: "auto", ...(choice.disable_parallel_tool_use === undefined ? {} : { disable_parallel_tool_use: choice.disable_parallel_tool_use }) };
  }
  return sent;
}

/** `thinking.block_binding` is taken out when its beta is not asked for, rather than sent into a 400. */
function withoutUnboundBinding(thinking: unknown, headers: Record<string, string>): unknown {
  const config = thinking as { block_binding?: unknown } | undefined;
  if (!config || typeof config !== "object" || !("block_binding" in config)) return thinking;
  const betas = (headers["anthropic-beta"] ?? "").split(",").map((beta) => beta.trim());
  if (betas.includes(BLOCK_BINDING_BETA)) return thinking;
  const { block_binding: _dropped, ...rest } = config;
  return rest;
}

/** Sets the defaults the gateway sets (an alias's system prompt and temperature, the token limit) where the client set none. */
function setGatewayDefaults(params: Record<string, unknown>, request: ChatRequest, options: AdapterOptions, body: Record<string, unknown>): void {
  const base = toWireParams(extend(request, { tools: [], messages: request.messages.filter((m) => m.role === "system" && !isPassthrough(m)) }), options);
  params["max_tokens"] = base.max_tokens;
  if (base.system !== undefined && body["system"] === undefined) params["system"] = base.system;
  if (request.temperature !== undefined && body["temperature"] === undefined && body["thinking"] === undefined) params["temperature"] = Math.min(1, request.temperature);
}

/** Fields of the client's body that the gateway sets itself, after the rest. */
const SET_AFTER = new Set(["tools", "tool_choice", "thinking"]);

/**
 * The body: the gateway's defaults, then the client's fields in its order (a field it also set
 * keeps the default's place and takes the client's value), then the gateway's own. Built by
 * assignment, with spreads' key order: spreads cost microseconds on Node 20 (src/core/extend.ts).
 */
export function passthroughParams(request: ChatRequest, passthrough: RequestPassthrough, options: AdapterOptions): WireParams {
  const body = passthrough.body;
  const clientNames = new Set(passthrough.tools.map((tool) => tool["name"]));
  const gatewayTools = toWireTools((request.tools ?? []).filter((tool) => !clientNames.has(tool.name)));
  const tools = withToolSearch([...passthrough.tools, ...gatewayTools] as { type?: unknown; defer_loading?: unknown }[], gatewayTools);
  const choice = toolChoice(request, body["tool_choice"], tools.length);
  const fittedThinking = withoutUnboundBinding(body["thinking"], passthrough.headers);
  const params: Record<string, unknown> = {};
  setGatewayDefaults(params, request, options, body);
  for (const key of Object.keys(body)) {
    if (SET_AFTER.has(key)) continue;
    setOwn(params, key, body[key]);
  }
  params["model"] = request.model;
  params["messages"] = passthroughMessages(request.messages, options.id) as MessageParam[];
  if (tools.length > 0) params["tools"] = tools;
  if (choice !== undefined) params["tool_choice"] = choice;
  if (fittedThinking !== undefined) params["thinking"] = fittedThinking;
  return params as unknown as WireParams;
}
