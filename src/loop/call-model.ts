/**
 * A streamed model call as the loop sees it: each of the model's events (in batches, one per
 * upstream read: core/event-batches.ts) mapped to at most one loop event. Client tool calls are
 * surfaced as they stream; the gateway's own (MCP) calls never are. The loop (agent-loop.ts
 * modelTurn) steps through them itself: a generator here would be one more async level on every
 * streamed event.
 */
import type { StreamEvent } from "../core/index.ts";
import type { LoopEvent } from "./types.ts";

export interface TurnTextState {
  /** Client tool calls surfaced so far in this response (their output indexes). */
  clientCallCount: number;
}

/**
 * Separates the texts of successive turns where a client protocol joins them into one text
 * (Chat Completions); protocols with content blocks keep one block per turn instead.
 */
export const TURN_TEXT_SEPARATOR = "\n\n";

/**
 * The loop events of one streamed model call: each upstream event becomes at most one (empty
 * deltas and the gateway's own tool calls make none). Client tool calls are numbered across the
 * turn's response (`state`), in the order they open.
 */
export class CallEvents {
  private readonly clientIndexByUpstream = new Map<number, number>();

  constructor(
    private readonly clientToolNames: ReadonlySet<string>,
    private readonly state: TurnTextState,
  ) {}

  of(event: StreamEvent): LoopEvent | undefined {
    return toLoopEvent(event, this.clientToolNames, this.state, this.clientIndexByUpstream);
  }
}

/** The loop event an upstream stream event makes, if any (empty deltas and the gateway's own tool calls make none). */
function toLoopEvent(event: StreamEvent, clientToolNames: ReadonlySet<string>, state: TurnTextState, clientIndexByUpstream: Map<number, number>): LoopEvent | undefined {
  switch (event.type) {
    case "start":
      return { type: "model_start", model: event.model, ...(event.provider ? { provider: event.provider } : {}) };
    case "text_start":
    case "reasoning_start":
      return event;
    case "text_delta":
    case "reasoning_delta":
      return event.delta !== "" ? event : undefined;
    case "text_end":
      return { type: "text_end" };
    case "reasoning_end":
      return event;
    case "tool_call_start": {
      if (!clientToolNames.has(event.name)) return undefined;
      const index = state.clientCallCount++;
      clientIndexByUpstream.set(event.index, index);
      return { type: "client_tool_call_start", index, id: event.id, name: event.name, ...(event.providerData ? { providerData: event.providerData } : {}) };
    }
    case "tool_call_delta": {
      const index = clientIndexByUpstream.get(event.index);
      return index !== undefined && event.delta !== "" ? { type: "client_tool_call_delta", index, delta: event.delta } : undefined;
    }
    case "tool_call_end": {
      const index = clientIndexByUpstream.get(event.index);
      return index !== undefined ? { type: "client_tool_call_end", index, call: event.call } : undefined;
    }
    case "opaque":
      return { type: "opaque_block", block: event.block };
    default:
      return undefined;
  }
}
