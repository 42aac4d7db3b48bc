/**
 * One model call of the loop: streamed (deltas forwarded as loop events as they arrive) or not.
 * Client tool calls are surfaced as they stream; the gateway's own (MCP) calls never are.
 */
import type { ChatRequest, ChatResult, StreamEvent } from "../core/index.ts";
import { singleEvents } from "../core/event-batches.ts";
import type { LoopEvent, LoopOptions } from "./types.ts";

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
 * Streamed, each upstream event becomes at most one loop event. `seen.visible` turns true with
 * the first event the client may see (anything but model_start): a failure after that cannot be
 * retried unseen (agent-loop.ts modelTurn).
 */
export async function* callModel(
  options: LoopOptions,
  request: ChatRequest,
  clientToolNames: ReadonlySet<string>,
  state: TurnTextState,
  seen?: { visible: boolean },
): AsyncGenerator<LoopEvent, ChatResult> {
  if (!options.stream) return await options.model.complete(request, options.signal);
  const clientIndexByUpstream = new Map<number, number>();
  const model = options.model;
  // In batches where the model has them: one async step per upstream read, not per event.
  const batches = model.streamBatches ? model.streamBatches(request, options.signal) : singleEvents(model.stream(request, options.signal));
  // The stream ends right after its `done` (the adapters end it there): it is left to end rather
  // than closed early, which would unwind every generator under it with return() calls, and
  // would skip what the retry layer does after a call that succeeded.
  let result: ChatResult | undefined;
  for await (const batch of batches) {
    if (result) continue;
    for (const event of batch) {
      if (event.type === "done") {
        result = event.result;
        break;
      }
      const out = toLoopEvent(event, clientToolNames, state, clientIndexByUpstream);
      if (out === undefined) continue;
      if (seen && out.type !== "model_start") seen.visible = true;
      yield out;
    }
  }
  if (result) return result;
  throw new Error("model stream ended without a result");
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
