/**
 * One model call of the loop: streamed (deltas forwarded as loop events as they arrive) or not.
 * Client tool calls are surfaced as they stream; the gateway's own (MCP) calls never are.
 */
import type { ChatRequest, ChatResult } from "../core/index.ts";
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

export async function* callModel(
  options: LoopOptions,
  request: ChatRequest,
  clientToolNames: ReadonlySet<string>,
  state: TurnTextState,
): AsyncGenerator<LoopEvent, ChatResult> {
  if (!options.stream) return await options.model.complete(request, options.signal);
  const clientIndexByUpstream = new Map<number, number>();
  for await (const event of options.model.stream(request, options.signal)) {
    switch (event.type) {
      case "start":
        yield { type: "model_start", model: event.model, ...(event.provider ? { provider: event.provider } : {}) };
        break;
      case "text_start":
      case "reasoning_start":
        yield event;
        break;
      case "text_delta":
      case "reasoning_delta":
        if (event.delta !== "") yield event;
        break;
      case "text_end":
        yield { type: "text_end" };
        break;
      case "reasoning_end":
        yield event;
        break;
      case "tool_call_start":
        if (clientToolNames.has(event.name)) {
          const index = state.clientCallCount++;
          clientIndexByUpstream.set(event.index, index);
          yield { type: "client_tool_call_start", index, id: event.id, name: event.name, ...(event.providerData ? { providerData: event.providerData } : {}) };
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
      case "opaque":
        yield { type: "opaque_block", block: event.block };
        break;
      case "done":
        return event.result;
      default:
        break;
    }
  }
  throw new Error("model stream ended without a result");
}
