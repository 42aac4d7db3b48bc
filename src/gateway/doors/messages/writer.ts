/**
 * The streamed Messages answer, in Anthropic's event grammar: `message_start`, then per block
 * `content_block_start` / `_delta` / `_stop` with consecutive indexes, `message_delta` with the
 * stop reason and the final usage, `message_stop`. `ping` events keep the connection alive while
 * MCP tools run; a failure after the first byte is an `event: error`, and the stream ends.
 */
import type { GatewayError } from "../../../core/index.ts";
import type { LoopEvent, LoopOutcome } from "../../../loop/index.ts";
import { ArgumentRelay, argumentText } from "../../shared/argument-relay.ts";
import { gatewayInfo } from "../../shared/gateway-info.ts";
import type { SseWriter } from "../../shared/sse-pump.ts";
import { anthropicFields, thinkingOut, type IsAnthropic } from "./answer-blocks.ts";
import { anthropicErrorType } from "./errors.ts";
import { toStopReason } from "./stop-reason.ts";
import { toAnthropicUsage } from "./usage.ts";

const frame = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

type OpenKind = "text" | "thinking" | "tool_use";

export class MessagesWriter implements SseWriter {
  readonly heartbeat = frame("ping", { type: "ping" });
  private index = -1;
  private openKind: OpenKind | undefined;
  /** Per client tool call (by its loop index): its argument text, relayed as the whole answer would carry it. */
  private readonly relays = new Map<number, ArgumentRelay>();

  constructor(
    private readonly id: string,
    /** The model that answers (known once its first call starts; the requested name until then). */
    private model: string,
    private readonly isAnthropic: IsAnthropic,
  ) {}

  open(): string {
    const message = {
      id: this.id,
      type: "message",
      role: "assistant",
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    return frame("message_start", { type: "message_start", message }) + this.heartbeat;
  }

  event(event: LoopEvent): string {
    switch (event.type) {
      case "model_start":
        this.model = event.model;
        return "";
      case "turn_start":
      case "text_end":
        return this.close();
      case "text_delta":
        return this.ensure("text", { type: "text", text: "" }) + this.delta({ type: "text_delta", text: event.delta });
      case "reasoning_delta":
        return this.ensure("thinking", { type: "thinking", thinking: "", signature: "" }) + this.delta({ type: "thinking_delta", thinking: event.delta });
      case "reasoning_end":
        return this.reasoningEnd(event.block);
      case "client_tool_call_start":
        this.relays.set(event.index, new ArgumentRelay());
        return this.close() + this.start("tool_use", { ...anthropicFields(event.providerData, this.isAnthropic), type: "tool_use", id: event.id, name: event.name, input: {} });
      case "client_tool_call_delta":
        return this.arguments(this.relays.get(event.index)?.push(event.delta) ?? "");
      case "client_tool_call_end": {
        const final = event.call.argumentsError === undefined ? argumentText(event.call) : JSON.stringify(event.call.arguments);
        return this.arguments(this.relays.get(event.index)?.finish(final) ?? "") + this.close();
      }
      default:
        return "";
    }
  }

  finish(outcome: LoopOutcome): string {
    const stopReason = toStopReason(outcome);
    const delta = { stop_reason: stopReason, stop_sequence: stopReason === "stop_sequence" ? (outcome.last.stopSequence ?? null) : null };
    return (
      this.close() +
      frame("message_delta", { type: "message_delta", delta, usage: toAnthropicUsage(outcome.usage), mcp_gateway: gatewayInfo(outcome) }) +
      frame("message_stop", { type: "message_stop" })
    );
  }

  fail(error: GatewayError): string {
    return this.close() + frame("error", { type: "error", error: { type: anthropicErrorType(error), message: error.message } });
  }

  private reasoningEnd(block: Parameters<typeof thinkingOut>[0]): string {
    const out = thinkingOut(block, this.isAnthropic);
    if (out.type === "redacted_thinking") return this.close() + this.start("thinking", out) + this.close();
    if (this.openKind !== "thinking" && block.text === "" && !block.providerData) return "";
    return this.ensure("thinking", { type: "thinking", thinking: "", signature: "" }) + this.delta({ type: "signature_delta", signature: out.signature }) + this.close();
  }

  private arguments(partial: string): string {
    return partial === "" ? "" : this.delta({ type: "input_json_delta", partial_json: partial });
  }

  private ensure(kind: OpenKind, block: object): string {
    return this.openKind === kind ? "" : this.close() + this.start(kind, block);
  }

  private start(kind: OpenKind, block: object): string {
    this.index++;
    this.openKind = kind;
    return frame("content_block_start", { type: "content_block_start", index: this.index, content_block: block });
  }

  private delta(delta: object): string {
    return frame("content_block_delta", { type: "content_block_delta", index: this.index, delta });
  }

  private close(): string {
    if (this.openKind === undefined) return "";
    this.openKind = undefined;
    return frame("content_block_stop", { type: "content_block_stop", index: this.index });
  }
}
