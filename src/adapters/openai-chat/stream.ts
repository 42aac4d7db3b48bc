import type { AssistantContent, ChatResult, StreamEvent, ToolCallBlock } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { toStopReason } from "./finish-reason.ts";
import { contentText, type ResponseContext } from "./from-response.ts";
import { readReasoning, toReasoningBlock, type ReasoningField } from "./reasoning.ts";
import { ToolCallAssembler } from "./tool-call-assembler.ts";
import { findUsage, toUsage } from "./usage.ts";
import { firstChoice, type WireChunk, type WireChunkChoice, type WireMessageFields, type WireUsage } from "./wire-types.ts";

/** The text-like run being streamed. A refusal streams as text but marks the turn as filtered. */
interface Segment {
  kind: "reasoning" | "text" | "refusal";
  text: string;
  field?: ReasoningField;
}

/**
 * Turns Chat Completions chunks into neutral stream events, keeping what it needs to build the
 * same ChatResult that `fromChatCompletion` builds for the same response. Only choice 0 is read.
 */
export class ChunkTranslator {
  private started = false;
  private id = "";
  private model: string;
  private segment: Segment | undefined;
  private readonly blocks: AssistantContent[] = [];
  private readonly tools = new ToolCallAssembler();
  private toolCalls: ToolCallBlock[] = [];
  private finishReason: string | undefined;
  private refused = false;
  private usage: WireUsage | undefined;

  constructor(private readonly context: ResponseContext) {
    this.model = context.model;
  }

  /** The events one chunk produces. */
  push(chunk: WireChunk): StreamEvent[] {
    // The SDK yields whatever JSON a data line holds; `data: null` or `data: 42` is not a chunk.
    if (typeof chunk !== "object" || chunk === null) {
      throw upstreamProtocolError(this.context.provider, `unexpected stream frame: ${JSON.stringify(chunk)}`);
    }
    const choice = firstChoice(chunk.choices);
    const usage = findUsage(chunk);
    // Azure sends a first chunk with only prompt_filter_results (empty id, model, choices): skip it.
    if (!choice && !usage) return [];
    this.usage = usage ?? this.usage;
    const events = this.started ? [] : this.start(chunk);
    if (choice && this.finishReason === undefined) events.push(...this.applyChoice(choice));
    return events;
  }

  /** The closing events once the upstream stream ended; throws if it ended before a finish_reason. */
  end(): StreamEvent[] {
    if (this.finishReason === undefined) {
      throw upstreamProtocolError(this.context.provider, "the stream ended before a finish_reason (cut off)");
    }
    const result = this.result();
    return [{ type: "usage", usage: result.usage }, { type: "done", result }];
  }

  private start(chunk: WireChunk): StreamEvent[] {
    this.started = true;
    this.id = chunk.id ?? "";
    this.model = chunk.model || this.context.model;
    return [{ type: "start", id: this.id, model: this.model }];
  }

  private applyChoice(choice: WireChunkChoice): StreamEvent[] {
    const events = choice.delta ? this.applyDelta(choice.delta) : [];
    if (choice.finish_reason) events.push(...this.finish(choice.finish_reason));
    return events;
  }

  /** Reasoning, then text, then refusal, then tool calls: the order a delta's fields are meant in. */
  private applyDelta(delta: WireMessageFields): StreamEvent[] {
    const events: StreamEvent[] = [];
    const reasoning = readReasoning(delta);
    if (reasoning) events.push(...this.append("reasoning", reasoning.text, reasoning.field));
    const text = contentText(delta.content);
    if (text !== "") events.push(...this.append("text", text));
    if (delta.refusal) events.push(...this.append("refusal", delta.refusal));
    if (delta.tool_calls?.length) {
      events.push(...this.closeSegment());
      for (const fragment of delta.tool_calls) events.push(...this.tools.add(fragment));
    }
    return events;
  }

  private append(kind: Segment["kind"], text: string, field?: ReasoningField): StreamEvent[] {
    const events: StreamEvent[] = [];
    let segment = this.segment;
    if (segment?.kind !== kind) {
      events.push(...this.closeSegment());
      segment = field === undefined ? { kind, text: "" } : { kind, text: "", field };
      this.segment = segment;
      events.push({ type: kind === "reasoning" ? "reasoning_start" : "text_start" });
    }
    segment.text += text;
    events.push(kind === "reasoning" ? { type: "reasoning_delta", delta: text } : { type: "text_delta", delta: text });
    return events;
  }

  private closeSegment(): StreamEvent[] {
    const segment = this.segment;
    if (!segment) return [];
    this.segment = undefined;
    if (segment.kind === "reasoning") {
      const block = toReasoningBlock(segment.text, segment.field ?? "reasoning_content", this.context.provider);
      this.blocks.push(block);
      return [{ type: "reasoning_end", block }];
    }
    if (segment.kind === "refusal") this.refused = true;
    this.blocks.push({ type: "text", text: segment.text });
    return [{ type: "text_end", text: segment.text }];
  }

  private finish(reason: string): StreamEvent[] {
    this.finishReason = reason;
    const closing = this.closeSegment();
    const { events, calls } = this.tools.finish();
    this.toolCalls = calls;
    return [...closing, ...events];
  }

  private result(): ChatResult {
    return {
      id: this.id,
      model: this.model,
      message: { role: "assistant", content: [...this.blocks, ...this.toolCalls] },
      stopReason: this.refused ? "content_filter" : toStopReason(this.finishReason, this.toolCalls.length > 0),
      usage: toUsage(this.usage),
    };
  }
}

/** Neutral events for a chunk stream, ending with `usage` and `done`. */
export async function* translateStream(chunks: AsyncIterable<WireChunk>, context: ResponseContext): AsyncGenerator<StreamEvent> {
  const translator = new ChunkTranslator(context);
  for await (const chunk of chunks) yield* translator.push(chunk);
  yield* translator.end();
}
