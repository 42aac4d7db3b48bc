/**
 * Live tool progress for streams (opt-in: `mcp_gateway.tool_events` or the header
 * `x-mcp-gateway-tool-events: true`): the loop's tool start, progress and end as one payload
 * every door carries in its own idiom — a Chat Completions delta's `mcp_gateway` field, an
 * `event: mcp_gateway` of the Messages stream, Responses' `mcp_call` events.
 */
import type { LoopEvent } from "../../loop/index.ts";

export type ToolEventPayload =
  | { type: "tool_start"; turn: number; call_id: string; name: string; arguments: Record<string, unknown> }
  | { type: "tool_progress"; turn: number; call_id: string; name: string; progress: number; total?: number; message?: string }
  | { type: "tool_end"; turn: number; call_id: string; name: string; duration_ms: number; is_error: boolean };

/** The payload of a tool event; undefined for every other loop event. */
export function toolEventPayload(event: LoopEvent): ToolEventPayload | undefined {
  switch (event.type) {
    case "tool_start":
      return { type: "tool_start", turn: event.turn, call_id: event.call.id, name: event.call.name, arguments: event.call.arguments };
    case "tool_progress": {
      const { progress, total, message } = event.progress;
      return { type: "tool_progress", turn: event.turn, call_id: event.call.id, name: event.call.name, progress, ...(total === undefined ? {} : { total }), ...(message === undefined ? {} : { message }) };
    }
    case "tool_end":
      return { type: "tool_end", turn: event.turn, call_id: event.call.id, name: event.call.name, duration_ms: event.durationMs, is_error: event.isError };
    default:
      return undefined;
  }
}
