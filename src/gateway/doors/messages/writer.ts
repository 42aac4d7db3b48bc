/**
 * The streamed Messages answer, in Anthropic's event grammar: `message_start`, then per block
 * `content_block_start` / `_delta` / `_stop` with consecutive indexes, `message_delta` with the
 * stop reason and the final usage, `message_stop`. `ping` events keep the connection alive while
 * MCP tools run; a failure after the first byte is an `event: error`, and the stream ends.
 *
 * Text and thinking stream as they come. A client tool call goes out whole when it is complete —
 * its block, one `input_json_delta` with the final input, its stop: providers finish several
 * parallel calls at once (OpenAI-protocol ones at `finish_reason`), and an input repaired or cut
 * short at the end must not reach the client as broken JSON it already received half of.
 */
import type { GatewayError, OpaqueBlock, ReasoningBlock, ToolCallBlock } from "../../../core/index.ts";
import type { LoopEvent, LoopOutcome } from "../../../loop/index.ts";
import { gatewayInfo } from "../../shared/gateway-info.ts";
import { toolEventPayload } from "../../shared/tool-events.ts";
import type { SseWriter } from "../../shared/sse-pump.ts";
import { anthropicFields, thinkingOut, type IsAnthropic } from "./answer-blocks.ts";
import { anthropicErrorType } from "./errors.ts";
import { stopSequenceOf, toStopReason } from "./stop-reason.ts";
import { answerUsage } from "./usage.ts";

const frame = (event: string, data: object) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

type OpenKind = "text" | "thinking";

export class MessagesWriter implements SseWriter {
  readonly heartbeat = frame("ping", { type: "ping" });
  private index = -1;
  private openKind: OpenKind | undefined;

  constructor(
    private readonly id: string,
    /** The model that answers (known once its first call starts; the requested name until then). */
    private model: string,
    private readonly isAnthropic: IsAnthropic,
    /**
     * `mcp_gateway.tool_events`: the gateway's tool calls as `event: mcp_gateway`, an event type
     * of its own, which Anthropic's SDKs pass on or skip (new event types are announced as
     * something clients must tolerate).
     */
    private readonly toolEvents = false,
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
    const tool = this.toolEvents ? toolEventPayload(event) : undefined;
    if (tool) return this.close() + frame("mcp_gateway", { type: "mcp_gateway", tool_event: tool });
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
      case "client_tool_call_end":
        return this.toolUse(event.call, event.call.providerData);
      case "opaque_block":
        return this.opaque(event.block);
      case "plan":
        // Plan mode: the plan at each change, in the event type of the gateway's own.
        return this.close() + frame("mcp_gateway", { type: "mcp_gateway", plan: event.plan });
      default:
        return "";
    }
  }

  finish(outcome: LoopOutcome): string {
    const stopReason = toStopReason(outcome, this.isAnthropic);
    const delta = { stop_reason: stopReason, stop_sequence: stopSequenceOf(outcome, stopReason) };
    return (
      this.close() +
      frame("message_delta", { type: "message_delta", delta, usage: answerUsage(outcome), mcp_gateway: gatewayInfo(outcome) }) +
      frame("message_stop", { type: "message_stop" })
    );
  }

  fail(error: GatewayError): string {
    return this.close() + frame("error", { type: "error", error: { type: anthropicErrorType(error), message: error.message } });
  }

  private reasoningEnd(block: ReasoningBlock): string {
    const out = thinkingOut(block, this.isAnthropic);
    if (out.type === "redacted_thinking") return this.close() + this.start("thinking", out) + this.close();
    if (this.openKind !== "thinking") {
      if (block.text === "" && !block.providerData) return "";
      // Thinking that came whole (no deltas): its text goes out in one delta.
      const text = block.text === "" ? "" : this.ensure("thinking", { type: "thinking", thinking: "", signature: "" }) + this.delta({ type: "thinking_delta", thinking: block.text });
      return text + this.ensure("thinking", { type: "thinking", thinking: "", signature: "" }) + this.delta({ type: "signature_delta", signature: out.signature }) + this.close();
    }
    return this.delta({ type: "signature_delta", signature: out.signature }) + this.close();
  }

  /** A client tool call, whole: its input as the non-streamed answer has it (an object, repaired or `{}`). */
  private toolUse(call: ToolCallBlock, providerData: ToolCallBlock["providerData"]): string {
    const block = { ...anthropicFields(providerData, this.isAnthropic), type: "tool_use", id: call.id, name: call.name, input: {} };
    return this.close() + this.start(undefined, block) + this.delta({ type: "input_json_delta", partial_json: JSON.stringify(call.arguments) }) + this.stop();
  }

  /** A server tool's block from Anthropic, whole, for Anthropic's own clients (others never get one). */
  private opaque(block: OpaqueBlock): string {
    if (!this.isAnthropic(block.providerData.origin)) return "";
    return this.close() + this.start(undefined, block.providerData.data["block"] as object) + this.stop();
  }

  private ensure(kind: OpenKind, block: object): string {
    return this.openKind === kind ? "" : this.close() + this.start(kind, block);
  }

  private start(kind: OpenKind | undefined, block: object): string {
    this.index++;
    this.openKind = kind;
    return frame("content_block_start", { type: "content_block_start", index: this.index, content_block: block });
  }

  private delta(delta: object): string {
    return frame("content_block_delta", { type: "content_block_delta", index: this.index, delta });
  }

  private stop(): string {
    this.openKind = undefined;
    return frame("content_block_stop", { type: "content_block_stop", index: this.index });
  }

  private close(): string {
    return this.openKind === undefined ? "" : this.stop();
  }
}
