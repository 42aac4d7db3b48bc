/**
 * One model call of the loop: streamed (deltas forwarded as loop events as they arrive) or not.
 * Client tool calls are surfaced as they stream; the gateway's own (MCP) calls never are.
 */
import type { ChatRequest, ChatResult } from "../core/index.ts";
import type { LoopEvent, LoopOptions } from "./types.ts";

export interface TurnTextState {
  /** Whether any text was already given to the client in an earlier turn. */
  textSent: boolean;
  /** Client tool calls surfaced so far in this response (their output indexes). */
  clientCallCount: number;
}

/** Separates the texts of successive turns, identically in streamed and non-streamed answers. */
export const TURN_TEXT_SEPARATOR = "\n\n";

export async function* callModel(
  options: LoopOptions,
  request: ChatRequest,
  clientToolNames: ReadonlySet<string>,
  state: TurnTextState,
): AsyncGenerator<LoopEvent, ChatResult> {
  if (!options.stream) return await options.model.complete(request, options.signal);
  const clientIndexByUpstream = new Map<number, number>();
  let firstTextOfTurn = true;
  for await (const event of options.model.stream(request, options.signal)) {
    switch (event.type) {
      case "text_delta":
        if (event.delta === "") break;
        if (firstTextOfTurn && state.textSent) yield { type: "text_delta", delta: TURN_TEXT_SEPARATOR };
        firstTextOfTurn = false;
        state.textSent = true;
        yield { type: "text_delta", delta: event.delta };
        break;
      case "reasoning_delta":
        if (event.delta !== "") yield { type: "reasoning_delta", delta: event.delta };
        break;
      case "tool_call_start":
        if (clientToolNames.has(event.name)) {
          const index = state.clientCallCount++;
          clientIndexByUpstream.set(event.index, index);
          yield { type: "client_tool_call_start", index, id: event.id, name: event.name };
        }
        break;
      case "tool_call_delta": {
        const index = clientIndexByUpstream.get(event.index);
        if (index !== undefined && event.delta !== "") yield { type: "client_tool_call_delta", index, delta: event.delta };
        break;
      }
      case "tool_call_end": {
        const index = clientIndexByUpstream.get(event.index);
        if (index !== undefined) yield { type: "client_tool_call_end", index, call: event.call };
        break;
      }
      case "done":
        return event.result;
      default:
        break;
    }
  }
  throw new Error("model stream ended without a result");
}
