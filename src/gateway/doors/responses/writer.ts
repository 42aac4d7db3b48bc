/**
 * The streamed Responses answer: the semantic event set with a `sequence_number` on each —
 * `response.created`, `response.in_progress`, per item `response.output_item.added` … `.done`
 * (with the reasoning summary, content part, output text, function-call argument, custom tool
 * input and MCP call events between), then `response.completed` (or `.incomplete`); a failure
 * after the first byte is an `error` event and `response.failed`, so a client always sees the
 * stream end properly. The items it streams are the items of the final response object.
 */
import { extend } from "../../../core/extend.ts";
import type { GatewayError, ReasoningBlock, ToolCallBlock } from "../../../core/index.ts";
import type { LoopEvent, LoopOutcome } from "../../../loop/index.ts";
import { ArgumentRelay, argumentText } from "../../shared/argument-relay.ts";
import type { SseWriter } from "../../shared/sse-pump.ts";
import { toolEventPayload, type ToolEventPayload } from "../../shared/tool-events.ts";
import { clientCallItem, mcpCallItem, messageItem, newId, reasoningItem, type ItemContext, type OutputItem } from "./output-items.ts";
import { responseObject, statusOf, type ResponseHead } from "./response-object.ts";

type Open =
  | { kind: "reasoning"; index: number; id: string; text: string }
  | { kind: "text"; index: number; id: string; text: string }
  | { kind: "call"; index: number; id: string; relay: ArgumentRelay };

export class ResponsesWriter implements SseWriter {
  readonly heartbeat = ": keep-alive\n\n";
  private sequence = 0;
  private readonly items: OutputItem[] = [];
  private current: Open | undefined;
  /** Client calls in flight, by the loop's index. */
  private readonly calls = new Map<number, Open & { kind: "call" }>();
  /** MCP calls in flight, by call id: their output index and item id. */
  private readonly mcp = new Map<string, { index: number; id: string }>();
  private final: { [key: string]: unknown } | undefined;
  /** The final response object's JSON, once made: the store's, then the stream's last event's. */
  private finalJson: string | undefined;
  /** The frames of an item still open when the final object was made (closed then), not yet sent. */
  private closedAtEnd = "";
  /** The model that answers: known once its first call starts. */
  private answering: string | undefined;

  constructor(
    private readonly head: ResponseHead,
    private readonly context: ItemContext,
    /** Items that open the output before the loop's (mcp_list_tools, approved MCP calls). */
    private readonly leading: OutputItem[],
    /**
     * `mcp_gateway.tool_events`: the `mcp_call` events carry the tool event (`mcp_gateway`), and
     * each MCP progress notification is one more `response.mcp_call.in_progress` of its item (an
     * event type clients know, so strict readers of the grammar are unaffected).
     */
    private readonly toolEvents = false,
  ) {}

  private get answeringHead(): ResponseHead {
    return this.answering ? extend(this.head, { model: this.answering }) : this.head;
  }

  open(): string {
    // Both events carry the same snapshot, most of it the request's tools and instructions: serialized once.
    const created = JSON.stringify(responseObject(this.answeringHead, [], { status: "in_progress" }));
    let out = this.emitResponse("response.created", created) + this.emitResponse("response.in_progress", created);
    for (const item of this.leading) out += this.whole(item);
    return out;
  }

  event(event: LoopEvent): string {
    switch (event.type) {
      case "model_start":
        if (!this.answering) this.answering = event.model;
        return "";
      case "turn_start":
        return this.closeOpen();
      case "reasoning_delta":
        return this.reasoningDelta(event.delta);
      case "reasoning_end":
        return this.reasoningEnd(event.block);
      case "text_delta":
        return this.textDelta(event.delta);
      case "text_end":
        return this.closeOpen();
      case "client_tool_call_start":
        return this.callStart(event.index, event.id, event.name);
      case "client_tool_call_delta":
        return this.callDelta(event.index, event.delta);
      case "client_tool_call_end":
        return this.callEnd(event.index, event.call);
      case "tool_start":
        return this.mcpStart(event.call, this.liveEvent(event));
      case "tool_progress":
        return this.mcpProgress(event.call, this.liveEvent(event));
      case "tool_end":
        return this.mcpEnd(event.call, event.result, this.liveEvent(event));
      case "opaque_block":
        // A hosted tool's item from a Responses upstream, whole (others have no such items).
        return this.context.isResponses(event.block.providerData.origin) ? this.closeOpen() + this.whole(event.block.providerData.data["item"] as OutputItem) : "";
      default:
        return "";
    }
  }

  /**
   * The final response object: built once, the same for the stream's last event and the store
   * (which takes it before `finish`). An item still open then is closed first, so that both have
   * it whole; its frames go out with the end.
   */
  result(outcome: LoopOutcome): { [key: string]: unknown } {
    if (!this.final) {
      this.closedAtEnd = this.closeOpen();
      this.final = responseObject(extend(this.head, { model: outcome.last.model }), this.items, extend(statusOf(outcome), { outcome }));
    }
    return this.final;
  }

  /** The final response object's JSON: made once, for the store (before `finish`) and the stream's last event. */
  resultJson(outcome: LoopOutcome): string {
    return (this.finalJson ??= JSON.stringify(this.result(outcome)));
  }

  finish(outcome: LoopOutcome): string {
    const json = this.resultJson(outcome);
    const status = this.result(outcome)["status"];
    return this.takeClosed() + this.emitResponse(status === "incomplete" ? "response.incomplete" : "response.completed", json);
  }

  fail(error: GatewayError): string {
    const code = error.code ?? error.type;
    const closing = this.takeClosed() + this.closeOpen();
    const response = responseObject(this.answeringHead, this.items, { status: "failed", error: { code, message: error.message } });
    return closing + this.emit("error", { code, message: error.message, param: error.param ?? null }) + this.emit("response.failed", { response });
  }

  /** The frames `result` held back, once. */
  private takeClosed(): string {
    const closed = this.closedAtEnd;
    this.closedAtEnd = "";
    return closed;
  }

  private emit(type: string, fields: object): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: this.sequence++, ...fields })}\n\n`;
  }

  /** What `emit(type, { response })` writes, from the response's JSON (the types are plain ASCII names). */
  private emitResponse(type: string, responseJson: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.sequence++},"response":${responseJson}}\n\n`;
  }

  private added(item: OutputItem): number {
    this.items.push(item);
    const index = this.items.length - 1;
    return index;
  }

  /** An item that has no deltas: added and done at once. */
  private whole(item: OutputItem): string {
    const index = this.added(item);
    return this.emit("response.output_item.added", { output_index: index, item }) + this.emit("response.output_item.done", { output_index: index, item });
  }

  private reasoningDelta(delta: string): string {
    let out = "";
    if (this.current?.kind !== "reasoning") {
      out += this.closeOpen();
      const id = newId("rs");
      const index = this.added({ type: "reasoning", id, summary: [] });
      this.current = { kind: "reasoning", index, id, text: "" };
      out += this.emit("response.output_item.added", { output_index: index, item: { type: "reasoning", id, summary: [] } });
      out += this.emit("response.reasoning_summary_part.added", { item_id: id, output_index: index, summary_index: 0, part: { type: "summary_text", text: "" } });
    }
    this.current.text += delta;
    return out + this.emit("response.reasoning_summary_text.delta", { item_id: this.current.id, output_index: this.current.index, summary_index: 0, delta });
  }

  private reasoningEnd(block: ReasoningBlock): string {
    if (this.current?.kind !== "reasoning") {
      if (block.text === "" && !block.providerData) return "";
      return this.closeOpen() + this.whole(reasoningItem(block, this.context));
    }
    const { index, id, text } = this.current;
    this.current = undefined;
    const item = reasoningItem(block, this.context, id);
    this.items[index] = item;
    return (
      this.emit("response.reasoning_summary_text.done", { item_id: id, output_index: index, summary_index: 0, text }) +
      this.emit("response.reasoning_summary_part.done", { item_id: id, output_index: index, summary_index: 0, part: { type: "summary_text", text } }) +
      this.emit("response.output_item.done", { output_index: index, item })
    );
  }

  private textDelta(delta: string): string {
    let out = "";
    if (this.current?.kind !== "text") {
      out += this.closeOpen();
      const id = newId("msg");
      const item = { type: "message", id, status: "in_progress", role: "assistant", content: [] };
      const index = this.added(item);
      this.current = { kind: "text", index, id, text: "" };
      out += this.emit("response.output_item.added", { output_index: index, item });
      out += this.emit("response.content_part.added", { item_id: id, output_index: index, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
    }
    this.current.text += delta;
    return out + this.emit("response.output_text.delta", { item_id: this.current.id, output_index: this.current.index, content_index: 0, delta, logprobs: [] });
  }

  /** Ends an open reasoning or text item (a reasoning item without its end event keeps what it streamed). */
  private closeOpen(): string {
    const open = this.current;
    if (!open || open.kind === "call") return "";
    this.current = undefined;
    if (open.kind === "reasoning") return this.reasoningEnd({ type: "reasoning", text: open.text });
    const item = messageItem(open.text, open.id);
    this.items[open.index] = item;
    const part = (item["content"] as object[])[0];
    return (
      this.emit("response.output_text.done", { item_id: open.id, output_index: open.index, content_index: 0, text: open.text, logprobs: [] }) +
      this.emit("response.content_part.done", { item_id: open.id, output_index: open.index, content_index: 0, part }) +
      this.emit("response.output_item.done", { output_index: open.index, item })
    );
  }

  private callStart(loopIndex: number, callId: string, name: string): string {
    const placeholder: ToolCallBlock = { type: "tool_call", id: callId, name, arguments: {}, rawArguments: "" };
    const item = clientCallItem(placeholder, this.context);
    if (!item) return "";
    const out = this.closeOpen();
    // Announced in progress, nothing streamed yet, as OpenAI announces them (an approval request is whole).
    const started =
      item.type === "function_call" ? { ...item, arguments: "", status: "in_progress" } : item.type === "custom_tool_call" ? { ...item, input: "", status: "in_progress" } : item.type === "tool_search_call" ? { ...item, status: "in_progress" } : item;
    const index = this.added(started);
    this.calls.set(loopIndex, { kind: "call", index, id: item.id, relay: new ArgumentRelay() });
    return out + this.emit("response.output_item.added", { output_index: index, item: started });
  }

  private callDelta(loopIndex: number, delta: string): string {
    const call = this.calls.get(loopIndex);
    if (!call || this.items[call.index]?.type !== "function_call") return "";
    const text = call.relay.push(delta);
    return text === "" ? "" : this.emit("response.function_call_arguments.delta", { item_id: call.id, output_index: call.index, delta: text });
  }

  private callEnd(loopIndex: number, finished: ToolCallBlock): string {
    const call = this.calls.get(loopIndex);
    if (!call) return "";
    const item = clientCallItem(finished, this.context, call.id)!;
    this.items[call.index] = item;
    let out = "";
    if (item.type === "function_call") {
      const rest = call.relay.finish(argumentText(finished));
      if (rest !== "") out += this.emit("response.function_call_arguments.delta", { item_id: call.id, output_index: call.index, delta: rest });
      out += this.emit("response.function_call_arguments.done", { item_id: call.id, output_index: call.index, arguments: item["arguments"] });
    } else if (item.type === "custom_tool_call") {
      out += this.emit("response.custom_tool_call_input.delta", { item_id: call.id, output_index: call.index, delta: item["input"] });
      out += this.emit("response.custom_tool_call_input.done", { item_id: call.id, output_index: call.index, input: item["input"] });
    }
    return out + this.emit("response.output_item.done", { output_index: call.index, item });
  }

  /** The event's `mcp_gateway` field, with tool events on. */
  private liveEvent(event: LoopEvent): { mcp_gateway?: { tool_event: ToolEventPayload } } {
    const payload = this.toolEvents ? toolEventPayload(event) : undefined;
    return payload ? { mcp_gateway: { tool_event: payload } } : {};
  }

  private mcpProgress(call: ToolCallBlock, live: { mcp_gateway?: { tool_event: ToolEventPayload } }): string {
    const started = this.mcp.get(call.id);
    if (!started || !live.mcp_gateway) return "";
    return this.emit("response.mcp_call.in_progress", { item_id: started.id, output_index: started.index, ...live });
  }

  private mcpStart(call: ToolCallBlock, live: object): string {
    const out = this.closeOpen();
    const item = mcpCallItem({ call, result: { type: "tool_result", callId: call.id, content: [], isError: false } }, this.context);
    const started = { ...item, output: null, error: null, status: "in_progress" };
    const index = this.added(started);
    this.mcp.set(call.id, { index, id: item.id });
    const ids = { item_id: item.id, output_index: index };
    return (
      out +
      this.emit("response.output_item.added", { output_index: index, item: started }) +
      this.emit("response.mcp_call.in_progress", { ...ids, ...live }) +
      this.emit("response.mcp_call_arguments.delta", { ...ids, delta: item["arguments"] }) +
      this.emit("response.mcp_call_arguments.done", { ...ids, arguments: item["arguments"] })
    );
  }

  private mcpEnd(call: ToolCallBlock, result: Parameters<typeof mcpCallItem>[0]["result"], live: object): string {
    const started = this.mcp.get(call.id);
    if (!started) return "";
    const item = mcpCallItem({ call, result }, this.context, started.id);
    this.items[started.index] = item;
    const ids = { item_id: started.id, output_index: started.index };
    return this.emit(result.isError ? "response.mcp_call.failed" : "response.mcp_call.completed", { ...ids, ...live }) + this.emit("response.output_item.done", { output_index: started.index, item });
  }
}
