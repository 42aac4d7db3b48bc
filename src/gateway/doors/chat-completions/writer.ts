/**
 * The streamed Chat Completions answer: loop events as `chat.completion.chunk` SSE frames,
 * ending in `data: [DONE]`; `: keep-alive` comments while tools run.
 */
import type { GatewayError } from "../../../core/index.ts";
import { TURN_TEXT_SEPARATOR, type LoopEvent, type LoopOutcome } from "../../../loop/index.ts";
import { gatewayInfo } from "../../shared/gateway-info.ts";
import type { SseWriter } from "../../shared/sse-pump.ts";
import { toolEventPayload } from "../../shared/tool-events.ts";
import { ChunkBuilder } from "./chunks.ts";
import { toFinishReason } from "./finish-reason.ts";

const frame = (payload: object | string) => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;

export class ChatCompletionsWriter implements SseWriter {
  readonly heartbeat = ": keep-alive\n\n";
  private readonly chunks: ChunkBuilder;
  /** Chat Completions has one text: the texts of successive turns are joined with a separator. */
  private textSent = false;
  private firstTextOfTurn = true;

  constructor(
    meta: { id: string; created: number },
    model: string,
    private readonly includeUsage: boolean,
    /** `mcp_gateway.tool_events`: the gateway's tool calls as chunks of their own. */
    private readonly toolEvents = false,
  ) {
    this.chunks = new ChunkBuilder(meta.id, model, meta.created);
  }

  open(): string {
    return frame(this.chunks.opening());
  }

  event(event: LoopEvent): string {
    if (event.type === "turn_start") this.firstTextOfTurn = true;
    if (event.type === "model_start") this.chunks.model = event.model;
    if (event.type === "text_delta") {
      const separator = this.firstTextOfTurn && this.textSent ? frame(this.chunks.textJson(TURN_TEXT_SEPARATOR)) : "";
      this.firstTextOfTurn = false;
      this.textSent = true;
      return separator + frame(this.chunks.textJson(event.delta));
    }
    const tool = this.toolEvents ? toolEventPayload(event) : undefined;
    if (tool) return frame(this.chunks.toolEvent(tool));
    const chunk = this.chunks.fromEvent(event);
    return chunk ? frame(chunk) : "";
  }

  finish(outcome: LoopOutcome): string {
    let frames = frame(this.chunks.finish(toFinishReason(outcome.stopReason), gatewayInfo(outcome)));
    if (this.includeUsage) frames += frame(this.chunks.usage(outcome.usage));
    return frames + frame("[DONE]");
  }

  fail(error: GatewayError): string {
    return frame(error.toJSON()) + frame("[DONE]");
  }
}
