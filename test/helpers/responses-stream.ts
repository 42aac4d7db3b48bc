/**
 * The OpenAI Responses streaming grammar, checked: parses an SSE body into its events and
 * verifies them the way a strict client reads them, throwing (with the offending event) on a
 * violation:
 * - every frame's `event:` name equals its data's `type`; `sequence_number` counts 0, 1, 2, …
 *   without gaps;
 * - `response.created` first (then `response.in_progress`), one terminal event last
 *   (`response.completed` unless told otherwise), nothing after it;
 * - `response.output_item.added` opens item N at `output_index` N (0, 1, 2, …), each item opened
 *   once and closed once by `response.output_item.done` with the same id and index;
 * - every event between names an open item (`item_id` + `output_index`) of the kind it belongs
 *   to (argument deltas to a `function_call`, input deltas to a `custom_tool_call`, text and
 *   content parts to a `message`, summary parts to a `reasoning`, MCP events to an `mcp_call`);
 * - the streamed pieces add up: argument/input/text/summary deltas equal their `.done` text and
 *   the item's final field;
 * - the final response (in the terminal event) has the created response's id and its `output`
 *   equals the items of the `.done` events in order.
 */
import { isDeepStrictEqual } from "node:util";

export type Json = any;

export interface SseEvent {
  event: string;
  data: Json;
}

/** The events of an SSE body (comment lines such as heartbeats skipped). */
export function parseSseEvents(text: string): SseEvent[] {
  return text
    .replaceAll("\r\n", "\n")
    .split("\n\n")
    .map((frame) => frame.split("\n").filter((line) => line !== "" && !line.startsWith(":")))
    .filter((lines) => lines.length > 0)
    .map((lines) => {
      let event = "message";
      const data: string[] = [];
      for (const line of lines) {
        if (line.startsWith("event:")) event = line.slice("event:".length).trim();
        else if (line.startsWith("data:")) data.push(line.slice("data:".length).replace(/^ /, ""));
      }
      return { event, data: JSON.parse(data.join("\n")) as Json };
    });
}

/**
 * The events of a Responses stream the gateway wrote, with its text checked too: each frame's data
 * is exactly `JSON.stringify` of an object whose first fields are `type` and `sequence_number`
 * (what the door's writer makes of the event by hand; recorded OpenAI traffic is not held to it).
 */
export function gatewayResponsesEvents(text: string): SseEvent[] {
  const frames = text.replaceAll("\r\n", "\n").split("\n\n").filter((frame) => frame.split("\n").some((line) => line.startsWith("data:")));
  for (const frame of frames) {
    const data = frame.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice("data:".length).replace(/^ /, "")).join("\n");
    const parsed = JSON.parse(data) as Record<string, unknown>;
    if (JSON.stringify(parsed) !== data) throw new Error(`not the JSON text of its value: ${data.slice(0, 300)}`);
    const keys = Object.keys(parsed);
    if (keys[0] !== "type" || keys[1] !== "sequence_number") throw new Error(`type and sequence_number are not its first fields: ${data.slice(0, 300)}`);
  }
  return parseSseEvents(text);
}

export interface CheckedStream {
  /** The response object of the terminal event. */
  response: Json;
  /** The items of the `response.output_item.done` events, in order. */
  doneItems: Json[];
  /** Event types in order. */
  types: string[];
  /** Whether an item was added while another was still open (OpenAI itself streams one item at a time). */
  overlapped: boolean;
}

/** Which item type each item-level event belongs to. */
const EVENT_ITEM_TYPE: Record<string, string> = {
  "response.function_call_arguments.delta": "function_call",
  "response.function_call_arguments.done": "function_call",
  "response.custom_tool_call_input.delta": "custom_tool_call",
  "response.custom_tool_call_input.done": "custom_tool_call",
  "response.content_part.added": "message",
  "response.content_part.done": "message",
  "response.output_text.delta": "message",
  "response.output_text.done": "message",
  "response.output_text.annotation.added": "message",
  "response.refusal.delta": "message",
  "response.refusal.done": "message",
  "response.reasoning_summary_part.added": "reasoning",
  "response.reasoning_summary_part.done": "reasoning",
  "response.reasoning_summary_text.delta": "reasoning",
  "response.reasoning_summary_text.done": "reasoning",
  "response.reasoning_text.delta": "reasoning",
  "response.reasoning_text.done": "reasoning",
  "response.mcp_call.in_progress": "mcp_call",
  "response.mcp_call.completed": "mcp_call",
  "response.mcp_call.failed": "mcp_call",
  "response.mcp_call_arguments.delta": "mcp_call",
  "response.mcp_call_arguments.done": "mcp_call",
};

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

interface OpenItem {
  index: number;
  item: Json;
  /** Accumulated deltas by stream (arguments, input, text per content index, summary per index). */
  pieces: Map<string, string>;
  done: boolean;
}

function textOfMessage(item: Json): string {
  return (item?.content ?? []).map((part: Json) => (part?.type === "output_text" ? String(part.text) : "")).join("");
}

export function checkResponsesStream(events: SseEvent[], terminal: string = "response.completed"): CheckedStream {
  const types = events.map((e) => e.event);
  const fail = (i: number, why: string): never => {
    throw new Error(`event #${i} ${JSON.stringify(events[i]).slice(0, 600)}: ${why}\nall types: ${types.join(",")}`);
  };
  if (events.length === 0) throw new Error("empty stream");
  const items: OpenItem[] = [];
  const doneItems: Json[] = [];
  let created: Json | undefined;
  let final: Json | undefined;
  let overlapped = false;
  for (const [i, { event, data }] of events.entries()) {
    if (data?.type !== event) fail(i, `event name "${event}" but data.type "${data?.type}"`);
    if (data.sequence_number !== i) fail(i, `sequence_number ${data.sequence_number}, expected ${i}`);
    if (final !== undefined) fail(i, "an event after the terminal event");
    if (i === 0) {
      if (event !== "response.created") fail(i, "the stream must start with response.created");
      created = data.response;
      if (created?.object !== "response" || typeof created.id !== "string" || !Array.isArray(created.output)) fail(i, "response.created without a response object");
      if (created.status !== "in_progress" && created.status !== "queued") fail(i, `created with status ${created.status}`);
      continue;
    }
    if (event === "response.in_progress" || event === "response.queued") {
      if (data.response?.id !== created.id) fail(i, "another response's id");
      continue;
    }
    if (TERMINAL.has(event)) {
      if (event !== terminal) fail(i, `terminal event ${event}, expected ${terminal}`);
      final = data.response;
      if (final?.object !== "response" || final.id !== created.id) fail(i, "the terminal response is not the created one");
      const open = items.filter((item) => !item.done).map((item) => item.index);
      if (open.length > 0) fail(i, `items still open at the end: ${open.join(",")}`);
      continue;
    }
    if (event === "error") fail(i, "an error event");
    if (event === "response.output_item.added") {
      if (data.output_index !== items.length) fail(i, `output_index ${data.output_index}, expected ${items.length}`);
      if (typeof data.item?.type !== "string" || typeof data.item?.id !== "string") fail(i, "an item without type or id");
      if (items.some((item) => item.item.id === data.item.id)) fail(i, "an item id added twice");
      if (items.some((item) => !item.done)) overlapped = true;
      items.push({ index: data.output_index, item: data.item, pieces: new Map(), done: false });
      continue;
    }
    const open = items[data.output_index];
    if (!open) fail(i, `output_index ${data.output_index} was never added`);
    if (open!.done) fail(i, `item ${data.output_index} is already done`);
    if (event === "response.output_item.done") {
      const item = data.item;
      if (item?.id !== open!.item.id || item?.type !== open!.item.type) fail(i, `done item ${item?.type}/${item?.id} is not the added ${open!.item.type}/${open!.item.id}`);
      const pieces = open!.pieces;
      if (item.type === "function_call" && pieces.has("arguments") && pieces.get("arguments") !== item.arguments) fail(i, "the argument deltas do not add up to the item's arguments");
      if (item.type === "custom_tool_call" && pieces.has("input") && pieces.get("input") !== item.input) fail(i, "the input deltas do not add up to the item's input");
      if (item.type === "message" && pieces.has("text:0") && pieces.get("text:0") !== textOfMessage(item)) fail(i, "the text deltas do not add up to the message's text");
      if (item.type === "reasoning" && pieces.has("summary:0") && pieces.get("summary:0") !== item.summary?.[0]?.text) fail(i, "the summary deltas do not add up to the item's summary");
      if (item.type === "mcp_call" && pieces.has("mcp_arguments") && pieces.get("mcp_arguments") !== item.arguments) fail(i, "the MCP argument deltas do not add up to the item's arguments");
      open!.done = true;
      doneItems.push(item);
      continue;
    }
    const itemType = EVENT_ITEM_TYPE[event];
    if (itemType === undefined) fail(i, `unknown event type ${event}`);
    if (open!.item.type !== itemType) fail(i, `${event} for a ${open!.item.type} item`);
    if (data.item_id !== open!.item.id) fail(i, `item_id ${data.item_id}, expected ${open!.item.id}`);
    const add = (key: string, delta: unknown) => {
      if (typeof delta !== "string") fail(i, "a delta that is not a string");
      open!.pieces.set(key, (open!.pieces.get(key) ?? "") + (delta as string));
    };
    const same = (key: string, text: unknown) => {
      if (typeof text !== "string") fail(i, "a done event without its text");
      if ((open!.pieces.get(key) ?? "") !== text) fail(i, `the deltas (${JSON.stringify(open!.pieces.get(key) ?? "")}) do not add up to the done text`);
    };
    switch (event) {
      case "response.function_call_arguments.delta":
        add("arguments", data.delta);
        break;
      case "response.function_call_arguments.done":
        same("arguments", data.arguments);
        break;
      case "response.custom_tool_call_input.delta":
        add("input", data.delta);
        break;
      case "response.custom_tool_call_input.done":
        same("input", data.input);
        break;
      case "response.output_text.delta":
        add(`text:${data.content_index}`, data.delta);
        break;
      case "response.output_text.done":
        same(`text:${data.content_index}`, data.text);
        break;
      case "response.reasoning_summary_text.delta":
        add(`summary:${data.summary_index}`, data.delta);
        break;
      case "response.reasoning_summary_text.done":
        same(`summary:${data.summary_index}`, data.text);
        break;
      case "response.mcp_call_arguments.delta":
        add("mcp_arguments", data.delta);
        break;
      case "response.mcp_call_arguments.done":
        same("mcp_arguments", data.arguments);
        break;
      default:
        break;
    }
  }
  if (final === undefined) throw new Error(`the stream did not end with ${terminal}: ${types.join(",")}`);
  const output = final.output;
  if (!Array.isArray(output)) throw new Error("the final response has no output array");
  if (!isDeepStrictEqual(output, doneItems)) {
    throw new Error(`the final output differs from the streamed items\nfinal: ${JSON.stringify(output).slice(0, 2000)}\ndone: ${JSON.stringify(doneItems).slice(0, 2000)}`);
  }
  return { response: final, doneItems, types, overlapped };
}
