/**
 * Assembles Anthropic's raw stream events into neutral StreamEvents and the final ChatResult.
 * Every event type is handled; anything out of protocol (a delta for a block that is not open, a
 * delta of the wrong kind, content before message_start) is an upstream protocol error.
 */
import { emptyUsage, type AssistantContent, type GatewayError, type ProviderData, type StreamEvent, type Usage } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { streamErrorEvent } from "./errors.ts";
import { inputText, opaqueResult, redactedResult, textResult, thinkingResult, toolCallResult, toolUseExtras } from "./result-blocks.ts";
import { toStopReason } from "./stop-reason.ts";
import { applyUsage, withCachedInput } from "./usage.ts";
import type { Message, RawMessageStreamEvent, WireStreamEvent } from "./wire.ts";
import { flatMapped } from "../../core/flat-mapped.ts";

type BlockStart = Extract<RawMessageStreamEvent, { type: "content_block_start" }>;
type BlockDelta = Extract<RawMessageStreamEvent, { type: "content_block_delta" }>["delta"];

type OpenBlock =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; ordinal: number; id: string; name: string; json: string; startInput: unknown; extras: ProviderData | undefined }
  /** Server tool blocks: run on Anthropic's side, not client calls; kept whole, with their input as it streams. */
  | { kind: "server"; block: { [key: string]: unknown }; json: string };

export class StreamAssembler {
  private message: { id: string; model: string } | undefined;
  private readonly open = new Map<number, OpenBlock>();
  /** Finished blocks by content-block index, so the result keeps the upstream's order. */
  private readonly content = new Map<number, AssistantContent>();
  private usage: Usage = emptyUsage();
  private stopReason: string | null = null;
  private stopSequence: string | null = null;
  private toolCalls = 0;
  /** True once `done` was produced. */
  finished = false;

  constructor(private readonly provider: string) {}

  /** message_delta carried the stop reason: all that message_stop would confirm is known. */
  get hasStopReason(): boolean {
    return this.stopReason !== null;
  }

  handle(event: WireStreamEvent): StreamEvent[] {
    switch (event.type) {
      case "message_start":
        return this.onMessageStart(event.message);
      case "content_block_start":
        return this.onBlockStart(event);
      case "content_block_delta":
        this.requireMessage(event.type);
        return this.onBlockDelta(event.index, event.delta);
      case "content_block_stop":
        this.requireMessage(event.type);
        return this.close(event.index, false);
      case "message_delta":
        this.requireMessage(event.type);
        this.stopReason = event.delta.stop_reason ?? this.stopReason;
        this.stopSequence = event.delta.stop_sequence ?? this.stopSequence;
        this.usage = applyUsage(this.usage, event.usage);
        return [];
      case "message_stop":
        return this.finish();
      case "ping":
        return [];
      case "error":
        throw streamErrorEvent(this.provider, event.error);
      default:
        // Anthropic adds event types over time and asks clients to tolerate unknown ones.
        return [];
    }
  }

  /** Closes what is still open (cut off by max_tokens) and produces `usage` and `done`. */
  finish(): StreamEvent[] {
    const message = this.requireMessage("message_stop");
    const indexes = [...this.open.keys()].sort((a, b) => a - b);
    const closing = flatMapped(indexes, (index) => this.close(index, true));
    const content = [...this.content.entries()].sort(([a], [b]) => a - b).map(([, block]) => block);
    this.finished = true;
    const result = {
      id: message.id,
      model: message.model,
      message: { role: "assistant" as const, content },
      stopReason: toStopReason(this.stopReason),
      ...(this.stopSequence ? { stopSequence: this.stopSequence } : {}),
      ...(this.stopReason ? { providerStopReason: this.stopReason } : {}),
      usage: withCachedInput(this.usage),
    };
    return [...closing, { type: "usage", usage: result.usage }, { type: "done", result }];
  }

  private protocolError(message: string): GatewayError {
    return upstreamProtocolError(this.provider, message);
  }

  private requireMessage(eventType: string): { id: string; model: string } {
    if (!this.message) throw this.protocolError(`${eventType} before message_start`);
    return this.message;
  }

  private onMessageStart(message: Message): StreamEvent[] {
    if (this.message) throw this.protocolError("a second message_start in one stream");
    this.message = { id: message.id, model: message.model };
    this.usage = applyUsage(this.usage, message.usage);
    return [{ type: "start", id: message.id, model: message.model }];
  }

  private onBlockStart(event: BlockStart): StreamEvent[] {
    this.requireMessage(event.type);
    if (this.open.has(event.index) || this.content.has(event.index)) {
      throw this.protocolError(`content block ${event.index} started twice`);
    }
    const block = event.content_block;
    switch (block.type) {
      case "text":
        this.open.set(event.index, { kind: "text", text: block.text });
        return [{ type: "text_start" }, ...(block.text ? [{ type: "text_delta" as const, delta: block.text }] : [])];
      case "thinking":
        this.open.set(event.index, { kind: "thinking", text: block.thinking, signature: block.signature });
        return [{ type: "reasoning_start" }, ...(block.thinking ? [{ type: "reasoning_delta" as const, delta: block.thinking }] : [])];
      case "redacted_thinking":
        this.open.set(event.index, { kind: "redacted", data: block.data });
        return [{ type: "reasoning_start" }];
      case "tool_use": {
        const ordinal = this.toolCalls++;
        const extras = toolUseExtras(block, this.provider);
        this.open.set(event.index, { kind: "tool", ordinal, id: block.id, name: block.name, json: "", startInput: block.input, extras });
        return [{ type: "tool_call_start", index: ordinal, id: block.id, name: block.name, ...(extras ? { providerData: extras } : {}) }];
      }
      default:
        this.open.set(event.index, { kind: "server", block: { ...(block as object) }, json: "" });
        return [];
    }
  }

  private onBlockDelta(index: number, delta: BlockDelta): StreamEvent[] {
    const block = this.open.get(index);
    if (!block) throw this.protocolError(`content_block_delta for block ${index}, which is not open`);
    if (block.kind === "server") {
      if (delta.type === "input_json_delta") block.json += delta.partial_json;
      return [];
    }
    // Citations annotate text; the neutral model has no place for them yet.
    if (delta.type === "citations_delta") return [];
    if (delta.type === "text_delta" && block.kind === "text") {
      block.text += delta.text;
      return delta.text ? [{ type: "text_delta", delta: delta.text }] : [];
    }
    if (delta.type === "thinking_delta" && block.kind === "thinking") {
      block.text += delta.thinking;
      return delta.thinking ? [{ type: "reasoning_delta", delta: delta.thinking }] : [];
    }
    if (delta.type === "signature_delta" && block.kind === "thinking") {
      block.signature += delta.signature;
      return [];
    }
    if (delta.type === "input_json_delta" && block.kind === "tool") {
      block.json += delta.partial_json;
      return delta.partial_json ? [{ type: "tool_call_delta", index: block.ordinal, id: block.id, delta: delta.partial_json }] : [];
    }
    throw this.protocolError(`unexpected ${String((delta as { type?: unknown }).type)} for a ${block.kind} block`);
  }

  /** @param truncated the block never got its content_block_stop: the response was cut off. */
  private close(index: number, truncated: boolean): StreamEvent[] {
    const block = this.open.get(index);
    if (!block) throw this.protocolError(`content_block_stop for block ${index}, which is not open`);
    this.open.delete(index);
    switch (block.kind) {
      case "text":
        this.content.set(index, textResult(block.text));
        return [{ type: "text_end", text: block.text }];
      case "thinking": {
        const reasoning = thinkingResult(block.text, block.signature, this.provider);
        this.content.set(index, reasoning);
        return [{ type: "reasoning_end", block: reasoning }];
      }
      case "redacted": {
        const reasoning = redactedResult(block.data, this.provider);
        this.content.set(index, reasoning);
        return [{ type: "reasoning_end", block: reasoning }];
      }
      case "tool": {
        // Input arrives as partial_json; a server that sends it whole in content_block_start sends no deltas.
        const raw = block.json !== "" ? block.json : inputText(block.startInput);
        const call = toolCallResult(block.id, block.name, raw, truncated, block.extras);
        this.content.set(index, call);
        return [{ type: "tool_call_end", index: block.ordinal, call }];
      }
      case "server": {
        if (block.json !== "") block.block["input"] = parseServerInput(block.json);
        const opaque = opaqueResult(block.block, this.provider);
        this.content.set(index, opaque);
        return [{ type: "opaque", block: opaque }];
      }
    }
  }
}

/** A server tool's streamed input; kept as text if it does not parse (it goes back as it came). */
function parseServerInput(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return json;
  }
}
