/**
 * Gemini responses as neutral content, events and the final ChatResult. A non-streamed response
 * is fed as one chunk and a streamed one chunk by chunk, so both give the same result.
 *
 * Parts, in order:
 * - text parts (and `thought: true` parts, the reasoning) that follow each other are one block, as
 *   a stream splits one part over chunks; a `thoughtSignature` (in a stream often on a last, empty
 *   text part) belongs to that block and goes back on it. A signature on a part whose block already
 *   has one starts a new block.
 * - a `functionCall` is a call: whole (`name` and `args`), or, on Vertex AI, in pieces (`name`
 *   with `willContinue`, then `partialArgs` by JSON path, ended by an empty `functionCall` or by
 *   the answer's end). Its `thoughtSignature` and an `id` Gemini gave are kept as provider data.
 *   Without an id, the adapter makes one (the wire never sees it: calls and responses pair by
 *   order and name).
 * - any other part (inline media, executable code, server-side tool calls) is kept whole as an
 *   opaque block, to go back where it was.
 */
import { randomHex } from "../../core/random-id.ts";
import type { AssistantContent, ChatResult, ProviderData, StreamEvent, ToolCallBlock } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import { googleError } from "./errors.ts";
import { failedCallError, FAILED_CALL_REASONS, toStopReason } from "./finish-reason.ts";
import { PartialArguments } from "./partial-args.ts";
import { providerData, THOUGHT_SIGNATURE_KEY, WIRE_ID_KEY, WIRE_PART_KEY } from "./provider-data.ts";
import { fromUsage } from "./usage.ts";
import type { FunctionCall, WireChunk, WirePart, WireResponse } from "./wire.ts";

export const TRUNCATED_CALL_ERROR = "the tool input was cut off before it was complete (the response ended inside the tool call)";

const randomId = (): string => randomHex(12);

export function synthesizeCallId(): string {
  return `call_${randomId()}`;
}

type OpenBlock =
  | { kind: "text" | "thought"; text: string; signature: string | undefined; announced: boolean }
  | { kind: "call"; ordinal: number; id: string; wireId: string | undefined; name: string; signature: string | undefined; args: PartialArguments };

export class ResponseAssembler {
  private id: string | undefined;
  private model: string | undefined;
  private readonly content: AssistantContent[] = [];
  private open: OpenBlock | undefined;
  private calls = 0;
  private usage: WireResponse["usageMetadata"];
  private finishReason: string | undefined;
  private finishMessage: string | undefined;
  private blocked = false;
  private started = false;
  /** True once `done` was produced. */
  finished = false;

  constructor(
    private readonly provider: string,
    /** The requested model, for a response that does not name one. */
    private readonly requestedModel: string,
  ) {}

  /** Whether the answer said it is over (a finish reason, or a blocked prompt). */
  get ended(): boolean {
    return this.finishReason !== undefined || this.blocked;
  }

  push(chunk: WireChunk): StreamEvent[] {
    if ("error" in chunk) throw googleError(this.provider, chunk.error);
    const events: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      this.id = chunk.responseId ?? `gemini_${randomId()}`;
      this.model = chunk.modelVersion ?? this.requestedModel;
      events.push({ type: "start", id: this.id, model: this.model });
    }
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (chunk.promptFeedback?.blockReason) {
      this.blocked = true;
      this.finishMessage ??= chunk.promptFeedback.blockReasonMessage ?? `prompt blocked (${chunk.promptFeedback.blockReason})`;
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) events.push(...this.part(part));
    if (candidate?.finishReason) this.finishReason = candidate.finishReason;
    if (candidate?.finishMessage) this.finishMessage = candidate.finishMessage;
    return events;
  }

  /** Closes what is open and produces `usage` and `done`; throws for an answer that failed its call. */
  finish(): StreamEvent[] {
    const reason = this.finishReason;
    if (reason !== undefined && FAILED_CALL_REASONS.has(reason)) throw failedCallError(this.provider, reason, this.finishMessage);
    const events = this.close(reason === "MAX_TOKENS");
    const hasCalls = this.content.some((block) => block.type === "tool_call");
    const result: ChatResult = {
      id: this.id ?? "",
      model: this.model ?? this.requestedModel,
      message: { role: "assistant", content: this.content },
      stopReason: toStopReason(reason, this.blocked, hasCalls),
      usage: fromUsage(this.usage),
    };
    this.finished = true;
    return [...events, { type: "usage", usage: result.usage }, { type: "done", result }];
  }

  private part(part: WirePart): StreamEvent[] {
    if (part.functionCall) return this.functionCall(part.functionCall, part.thoughtSignature);
    if (typeof part.text === "string") return this.text(part.text, part.thought === true ? "thought" : "text", part.thoughtSignature);
    // A part the neutral model has no words for: kept whole, in its place.
    const events = this.close(false);
    this.content.push({ type: "opaque", providerData: { origin: this.provider, data: { [WIRE_PART_KEY]: part } } });
    return events;
  }

  private text(text: string, kind: "text" | "thought", signature: string | undefined): StreamEvent[] {
    const events: StreamEvent[] = [];
    let open = this.open;
    if (open?.kind !== kind || (open.signature !== undefined && signature !== undefined)) {
      // An empty part without a signature says nothing (streams end with one).
      if (text === "" && signature === undefined) return [];
      events.push(...this.close(false));
      open = { kind, text: "", signature: undefined, announced: false };
      this.open = open;
    }
    if (signature !== undefined) open.signature = signature;
    if (text === "") return events;
    if (!open.announced) {
      open.announced = true;
      events.push({ type: kind === "thought" ? "reasoning_start" : "text_start" });
    }
    open.text += text;
    events.push(kind === "thought" ? { type: "reasoning_delta", delta: text } : { type: "text_delta", delta: text });
    return events;
  }

  private functionCall(call: FunctionCall, signature: string | undefined): StreamEvent[] {
    const open = this.open?.kind === "call" ? this.open : undefined;
    if (call.name === undefined) {
      // The pieces of a call in progress; an empty `functionCall: {}` ends it.
      if (!open) return [];
      open.signature ??= signature;
      open.args.apply(call.partialArgs);
      return call.willContinue ? [] : this.close(false);
    }
    const events = this.close(false);
    const id = call.id || synthesizeCallId();
    const block: Extract<OpenBlock, { kind: "call" }> = {
      kind: "call",
      ordinal: this.calls++,
      id,
      wireId: call.id || undefined,
      name: call.name,
      signature,
      args: new PartialArguments(),
    };
    if (call.args) Object.assign(block.args.value, call.args);
    block.args.apply(call.partialArgs);
    const data = this.callData(block);
    events.push({ type: "tool_call_start", index: block.ordinal, id, name: call.name, ...(data ? { providerData: data } : {}) });
    this.open = block;
    if (!call.willContinue) events.push(...this.close(false));
    return events;
  }

  private callData(block: { signature: string | undefined; wireId: string | undefined }): ProviderData | undefined {
    return providerData(this.provider, {
      ...(block.signature === undefined ? {} : { [THOUGHT_SIGNATURE_KEY]: block.signature }),
      ...(block.wireId === undefined ? {} : { [WIRE_ID_KEY]: block.wireId }),
    }).providerData;
  }

  /** @param truncated the answer ended inside the open block (the token limit). */
  private close(truncated: boolean): StreamEvent[] {
    const open = this.open;
    this.open = undefined;
    if (!open) return [];
    if (open.kind === "call") {
      const call = this.callBlock(open, truncated);
      this.content.push(call);
      return [
        ...(call.rawArguments === "" ? [] : [{ type: "tool_call_delta" as const, index: open.ordinal, id: open.id, delta: call.rawArguments }]),
        { type: "tool_call_end", index: open.ordinal, call },
      ];
    }
    const data = providerData(this.provider, open.signature === undefined ? {} : { [THOUGHT_SIGNATURE_KEY]: open.signature });
    if (open.kind === "thought") {
      // A thought is always this provider's: it goes back to it (and only to it), signed or not.
      const block = { type: "reasoning" as const, text: open.text, providerData: data.providerData ?? { origin: this.provider, data: {} } };
      this.content.push(block);
      return open.announced ? [{ type: "reasoning_end", block }] : [];
    }
    this.content.push({ type: "text", text: open.text, ...data });
    return open.announced ? [{ type: "text_end", text: open.text }] : [];
  }

  private callBlock(open: Extract<OpenBlock, { kind: "call" }>, truncated: boolean): ToolCallBlock {
    const raw = JSON.stringify(open.args.value);
    const data = this.callData(open);
    const extra = data ? { providerData: data } : {};
    if (truncated) return { type: "tool_call", id: open.id, name: open.name, arguments: {}, rawArguments: raw, argumentsError: TRUNCATED_CALL_ERROR, ...extra };
    const parsed = parseToolArguments(raw);
    const call: ToolCallBlock = { type: "tool_call", id: open.id, name: open.name, arguments: parsed.arguments, rawArguments: raw, ...extra };
    if (open.args.unreadable.length > 0) call.argumentsError = `unreadable argument paths from the provider: ${open.args.unreadable.join(", ")}`;
    return call;
  }
}

/** A non-streamed response as a neutral ChatResult. */
export function fromResponse(response: WireResponse, provider: string, model: string): ChatResult {
  if (typeof response !== "object" || response === null) throw upstreamProtocolError(provider, "the response is not a JSON object");
  if (!response.candidates?.length && !response.promptFeedback?.blockReason) throw upstreamProtocolError(provider, "the response has no candidates");
  const assembler = new ResponseAssembler(provider, model);
  assembler.push(response);
  const done = assembler.finish().find((event) => event.type === "done");
  return (done as Extract<StreamEvent, { type: "done" }>).result;
}
