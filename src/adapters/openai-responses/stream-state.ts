/**
 * Assembles the events of a streamed Responses call into neutral StreamEvents and the final
 * ChatResult. Output items are the unit: deltas stream text, reasoning summaries and call
 * arguments as they come, and each item's `output_item.done` brings the item whole — the source
 * of the result's blocks (the reasoning's `encrypted_content` is only final there), so the result
 * is what the non-streamed conversion makes of the same items.
 */
import type { ChatResult, StreamEvent } from "../../core/index.ts";
import { upstreamProtocolError } from "../http-error.ts";
import { failedResponseError, streamErrorEvent } from "./errors.ts";
import { toResult, type ResponseSummary } from "./from-response.ts";
import { customCallBlock, functionCallBlock, opaqueBlock, partText, reasoningBlock } from "./result-items.ts";
import type { Response, ResponseOutputItem, WireStreamEvent } from "./wire.ts";

type OpenItem =
  /** Text parts by content index, with whether each is closed. */
  | { kind: "message"; id: string | undefined; parts: Map<number, { text: string; closed: boolean }> }
  | { kind: "reasoning"; id: string | undefined; started: boolean; text: string; part: string | undefined }
  | { kind: "call"; id: string | undefined; ordinal: number; callId: string; name: string; args: string; custom: boolean }
  | { kind: "other"; id: string | undefined };

const itemId = (item: { id?: unknown }): string | undefined => (typeof item.id === "string" ? item.id : undefined);

/** What tells an item apart: its id, or for a call without one (compatible servers), its call id. */
function itemKey(item: { id?: unknown; call_id?: unknown }): string | undefined {
  return itemId(item) ?? (typeof item.call_id === "string" ? item.call_id : undefined);
}

const openKey = (open: OpenItem): string | undefined => open.id ?? (open.kind === "call" ? open.callId : undefined);

export class StreamAssembler {
  private response: { id: string; model: string } | undefined;
  private readonly open = new Map<number, OpenItem>();
  /** Finished items by output index: the result keeps the upstream's order. */
  private readonly items = new Map<number, ResponseOutputItem>();
  private calls = 0;
  /** True once `done` was produced. */
  finished = false;

  constructor(
    private readonly provider: string,
    /** The requested model, for a response that does not name one. */
    private readonly model: string,
  ) {}

  handle(event: WireStreamEvent): StreamEvent[] {
    switch (event.type) {
      case "response.created":
      case "response.queued":
      case "response.in_progress":
        return this.onStart(event.response);
      case "response.output_item.added":
        return this.onItemAdded(event.output_index, event.item);
      case "response.output_text.delta":
      case "response.refusal.delta":
        return this.onTextDelta(event.output_index, event.content_index, event.delta);
      case "response.content_part.done":
        return this.onPartDone(event.output_index, event.content_index, event.part);
      case "response.reasoning_summary_text.delta":
        return this.onReasoningDelta(event.output_index, `summary ${event.summary_index}`, event.delta);
      case "response.reasoning_text.delta":
        return this.onReasoningDelta(event.output_index, `content ${event.content_index}`, event.delta);
      case "response.function_call_arguments.delta":
        return this.onArgumentsDelta(event.output_index, event.delta);
      case "response.output_item.done":
        return this.onItemDone(event.output_index, event.item);
      case "response.completed":
      case "response.incomplete":
        return this.finish(event.response);
      case "response.failed":
        throw failedResponseError(this.provider, event.response?.error);
      case "error":
        throw streamErrorEvent(this.provider, event);
      default:
        // OpenAI adds event types over time (hosted tools' progress, annotations, …): ignored.
        return [];
    }
  }

  private requireStart(eventType: string): void {
    if (!this.response) throw upstreamProtocolError(this.provider, `${eventType} before response.created`);
  }

  private onStart(response: Pick<Response, "id" | "model"> | undefined): StreamEvent[] {
    if (this.response) return [];
    const id = response?.id ?? "";
    const model = response?.model || this.model;
    this.response = { id, model };
    return [{ type: "start", id, model }];
  }

  private onItemAdded(index: number, item: ResponseOutputItem): StreamEvent[] {
    this.requireStart("response.output_item.added");
    const id = itemId(item);
    switch (item.type) {
      case "message":
        this.open.set(index, { kind: "message", id, parts: new Map() });
        return [];
      case "reasoning":
        this.open.set(index, { kind: "reasoning", id, started: false, text: "", part: undefined });
        return [];
      case "function_call":
      case "custom_tool_call": {
        const custom = item.type === "custom_tool_call";
        const args = custom ? "" : (item.arguments ?? "");
        const call = { kind: "call" as const, id, ordinal: this.calls++, callId: item.call_id, name: item.name, args, custom };
        this.open.set(index, call);
        const start: StreamEvent = { type: "tool_call_start", index: call.ordinal, id: call.callId, name: call.name };
        return args === "" ? [start] : [start, { type: "tool_call_delta", index: call.ordinal, id: call.callId, delta: args }];
      }
      default:
        this.open.set(index, { kind: "other", id });
        return [];
    }
  }

  /** The open message at an index; a delta whose item was never announced opens it. */
  private message(index: number): Extract<OpenItem, { kind: "message" }> {
    const open = this.open.get(index);
    if (open?.kind === "message") return open;
    if (open) throw upstreamProtocolError(this.provider, `a text delta for output item ${index}, which is not a message`);
    const message = { kind: "message" as const, id: undefined, parts: new Map() };
    this.open.set(index, message);
    return message;
  }

  private onTextDelta(index: number, contentIndex: number, delta: string): StreamEvent[] {
    this.requireStart("a text delta");
    const parts = this.message(index).parts;
    let part = parts.get(contentIndex);
    const events: StreamEvent[] = [];
    if (!part) {
      part = { text: "", closed: false };
      parts.set(contentIndex, part);
      events.push({ type: "text_start" });
    }
    part.text += delta;
    events.push({ type: "text_delta", delta });
    return events;
  }

  /** A part's end closes its text (the next part may start before the item is done). */
  private onPartDone(index: number, contentIndex: number, part: { type: string }): StreamEvent[] {
    const open = this.open.get(index);
    const streamed = open?.kind === "message" ? open.parts.get(contentIndex) : undefined;
    if (!streamed || streamed.closed || (part.type !== "output_text" && part.type !== "refusal")) return [];
    streamed.closed = true;
    return [{ type: "text_end", text: partText(part as Parameters<typeof partText>[0]) ?? streamed.text }];
  }

  private onReasoningDelta(index: number, part: string, delta: string): StreamEvent[] {
    this.requireStart("a reasoning delta");
    let open = this.open.get(index);
    if (!open) {
      open = { kind: "reasoning", id: undefined, started: false, text: "", part: undefined };
      this.open.set(index, open);
    }
    if (open.kind !== "reasoning") throw upstreamProtocolError(this.provider, `a reasoning delta for output item ${index}, which is not reasoning`);
    const events: StreamEvent[] = [];
    if (!open.started) {
      open.started = true;
      events.push({ type: "reasoning_start" });
    }
    // Summary parts are joined by a blank line in the block's text: the deltas say so too.
    if (open.part !== undefined && open.part !== part && open.text !== "") {
      open.text += "\n\n";
      events.push({ type: "reasoning_delta", delta: "\n\n" });
    }
    open.part = part;
    open.text += delta;
    events.push({ type: "reasoning_delta", delta });
    return events;
  }

  private onArgumentsDelta(index: number, delta: string): StreamEvent[] {
    this.requireStart("response.function_call_arguments.delta");
    const open = this.open.get(index);
    // Arguments of a call never announced come whole with its output_item.done.
    if (open?.kind !== "call" || open.custom) return [];
    open.args += delta;
    return [{ type: "tool_call_delta", index: open.ordinal, id: open.callId, delta }];
  }

  private onItemDone(index: number, item: ResponseOutputItem): StreamEvent[] {
    this.requireStart("response.output_item.done");
    if (this.items.has(index)) throw upstreamProtocolError(this.provider, `output item ${index} finished twice`);
    const open = this.open.get(index);
    this.open.delete(index);
    this.items.set(index, item);
    switch (item.type) {
      case "message":
        return this.closeMessage(item, open?.kind === "message" ? open : undefined);
      case "reasoning": {
        const block = reasoningBlock(item, this.provider);
        const started = open?.kind === "reasoning" && open.started;
        return [...(started ? [] : [{ type: "reasoning_start" as const }]), { type: "reasoning_end", block }];
      }
      case "function_call":
      case "custom_tool_call": {
        const call = item.type === "function_call" ? functionCallBlock(item) : customCallBlock(item);
        if (open?.kind === "call") return [{ type: "tool_call_end", index: open.ordinal, call }];
        // Never announced: started here, its arguments in one delta (a freeform call's come in the end only).
        const ordinal = this.calls++;
        const raw = item.type === "function_call" ? call.rawArguments : "";
        return [
          { type: "tool_call_start", index: ordinal, id: call.id, name: call.name },
          ...(raw === "" ? [] : [{ type: "tool_call_delta" as const, index: ordinal, id: call.id, delta: raw }]),
          { type: "tool_call_end", index: ordinal, call },
        ];
      }
      default:
        // A hosted tool's item (web_search_call, …): whole, for Responses clients to show.
        return [{ type: "opaque", block: opaqueBlock(item, this.provider) }];
    }
  }

  /** Closes the message's streamed parts; a part that never streamed comes out whole here. */
  private closeMessage(item: Extract<ResponseOutputItem, { type: "message" }>, open: Extract<OpenItem, { kind: "message" }> | undefined): StreamEvent[] {
    const events: StreamEvent[] = [];
    (item.content ?? []).forEach((content, contentIndex) => {
      const text = partText(content) ?? "";
      const streamed = open?.parts.get(contentIndex);
      if (streamed?.closed) return;
      if (streamed) {
        events.push({ type: "text_end", text });
        return;
      }
      if (text === "") return;
      events.push({ type: "text_start" }, { type: "text_delta", delta: text }, { type: "text_end", text });
    });
    // Parts that streamed but that the finished item does not have are closed all the same.
    for (const [contentIndex, part] of open?.parts ?? []) {
      if (!part.closed && contentIndex >= (item.content ?? []).length) events.push({ type: "text_end", text: part.text });
    }
    return events;
  }

  /**
   * The terminal response: items it has that the stream never finished are finished from it
   * (matched by id, else by position), and what is still open (cut off) is closed from what
   * streamed; then `usage` and `done`.
   */
  private finish(response: ResponseSummary & Partial<Pick<Response, "output">>): StreamEvent[] {
    this.requireStart("the terminal event");
    const events: StreamEvent[] = [];
    const finished = new Set([...this.items.values()].map(itemKey).filter((key) => key !== undefined));
    let next = Math.max(-1, ...this.items.keys(), ...this.open.keys()) + 1;
    for (const [position, item] of (response.output ?? []).entries()) {
      const key = itemKey(item);
      if (key === undefined) {
        if (!this.items.has(position)) events.push(...this.onItemDone(position, item));
        continue;
      }
      if (finished.has(key)) continue;
      const openIndex = [...this.open.entries()].find(([, open]) => openKey(open) === key)?.[0];
      events.push(...this.onItemDone(openIndex ?? next++, item));
    }
    for (const [index, open] of [...this.open.entries()].sort(([a], [b]) => a - b)) {
      const item = cutOff(open);
      if (item) events.push(...this.onItemDone(index, item));
      else this.open.delete(index);
    }
    const output = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    const result: ChatResult = toResult(response, output, this.provider, this.response?.model ?? this.model);
    this.finished = true;
    return [...events, { type: "usage", usage: result.usage }, { type: "done", result }];
  }
}

/**
 * An item the response ended inside, as far as it streamed: `incomplete`, so a call in it is not
 * runnable. Reasoning cut off has no encrypted content and does not go back; a hosted tool's
 * unfinished item is dropped.
 */
function cutOff(open: OpenItem): ResponseOutputItem | undefined {
  const id = open.id ?? "";
  switch (open.kind) {
    case "message":
      return {
        type: "message",
        id,
        role: "assistant",
        status: "incomplete",
        content: [...open.parts.entries()].sort(([a], [b]) => a - b).map(([, part]) => ({ type: "output_text", text: part.text, annotations: [] })),
      };
    case "reasoning":
      return { type: "reasoning", id, status: "incomplete", summary: open.text === "" ? [] : [{ type: "summary_text", text: open.text }] };
    case "call":
      return open.custom
        ? ({ type: "custom_tool_call", call_id: open.callId, name: open.name, input: "", status: "incomplete" } as ResponseOutputItem)
        : { type: "function_call", call_id: open.callId, name: open.name, arguments: open.args, status: "incomplete" };
    case "other":
      return undefined;
  }
}
