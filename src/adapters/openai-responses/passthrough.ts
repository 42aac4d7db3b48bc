/**
 * The pass-through for clients that speak the Responses protocol itself (the Responses front
 * door): the fields of their body the neutral request has no words for reach the provider
 * unchanged (`truncation`, `text.verbosity`, `prompt_cache_key`, `service_tier`, `metadata`,
 * `include` entries, to which to-request.ts adds its own, …), and their hosted tools (web_search,
 * file_search, code_interpreter, …) go beside the gateway's and their own function tools. What the
 * adapter sets from the neutral request wins: the door made it from the same body, and the loop
 * may have changed it since (a forced tool choice relaxed after the first turn).
 */
import type { RequestPassthrough } from "../../core/index.ts";
import { isJsonObject, setOwn, type JsonObject } from "../../core/json-object.ts";
import type { PassthroughTool, WireParams } from "./wire.ts";

/**
 * Body fields never taken from the client: the conversation (in the neutral messages, the
 * instructions as a system message), and server state — the gateway keeps its own stored
 * responses and never lets the provider keep any.
 */
const NOT_FORWARDED = new Set(["model", "input", "instructions", "tools", "stream", "store", "previous_response_id", "conversation", "background"]);

/** The client's sub-fields under ours (`text.verbosity` beside our `text.format`). */
function mergedObject(client: unknown, ours: object | null | undefined): JsonObject | undefined {
  if (!isJsonObject(client)) return ours ? { ...ours } : undefined;
  return { ...client, ...ours };
}

/** Our effort; the client's choice of summary over our default. */
function mergedReasoning(client: unknown, ours: WireParams["reasoning"]): unknown {
  if (!ours || !isJsonObject(client)) return ours ?? client;
  const { effort: _effort, ...choices } = client;
  return { ...ours, ...choices, effort: ours.effort };
}

/** Choices the neutral request can say itself: of a function or custom tool, an MCP tool (run by the gateway), a set of tools. */
const NEUTRAL_CHOICES = new Set(["function", "custom", "mcp", "allowed_tools"]);

/**
 * A choice of one of the client's hosted tools (`{type:"web_search"}`) reaches the neutral request
 * as `required`: it goes as the client sent it, until the loop relaxes it (to `auto`).
 */
function mergedToolChoice(client: unknown, ours: WireParams["tool_choice"]): unknown {
  const hosted = isJsonObject(client) && typeof client["type"] === "string" && !NEUTRAL_CHOICES.has(client["type"]);
  return hosted && ours === "required" ? client : ours;
}

/** The client's tools the gateway did not already send: hosted tools, and tools not offered as neutral ones (deferred). */
function clientTools(passthrough: RequestPassthrough, sent: ReadonlySet<string>): PassthroughTool[] {
  return passthrough.tools.filter((tool) => typeof tool["name"] !== "string" || !sent.has(tool["name"]));
}

/**
 * `{ ...forwarded body, ...params, tools, text, reasoning, tool_choice }`, built by assignment in
 * that key order: a literal that starts with a spread costs about 1 µs per key after it on Node
 * 20 (src/core/extend.ts), and `Object.fromEntries(Object.entries(…).filter(…))` another 0.6.
 */
export function withPassthrough(params: WireParams, passthrough: RequestPassthrough, toolNames: ReadonlySet<string>): WireParams {
  const client = passthrough.body;
  const sent = new Set([...toolNames, ...(params.tools ?? []).map((tool) => (tool as { name?: unknown }).name).filter((name): name is string => typeof name === "string")]);
  const tools = [...(params.tools ?? []), ...clientTools(passthrough, sent)];
  const text = mergedObject(client["text"], params.text);
  const reasoning = mergedReasoning(client["reasoning"], params.reasoning);
  const toolChoice = mergedToolChoice(client["tool_choice"], params.tool_choice);
  const merged: Record<string, unknown> = {};
  for (const key of Object.keys(client)) if (!NOT_FORWARDED.has(key)) setOwn(merged, key, client[key]);
  const ours = params as unknown as Record<string, unknown>;
  for (const key of Object.keys(ours)) merged[key] = ours[key];
  if (tools.length > 0) merged["tools"] = tools;
  if (text !== undefined) merged["text"] = text;
  if (reasoning !== undefined) merged["reasoning"] = reasoning;
  if (toolChoice !== undefined) merged["tool_choice"] = toolChoice;
  return merged as unknown as WireParams;
}
