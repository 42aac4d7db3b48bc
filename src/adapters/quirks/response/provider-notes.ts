/**
 * Opaque provider data the response steps found on the wire, waiting to be attached to the
 * neutral blocks the base translation builds: per tool call (by id) and for the message's
 * reasoning. Kept apart because the wire steps run before those blocks exist.
 */
import type { AssistantContent, ChatResult, ProviderData, StreamEvent, ToolCallBlock } from "../../../core/index.ts";

type Data = ProviderData["data"];

export class ProviderNotes {
  private readonly calls = new Map<string, Data>();
  private reasoning: Data | undefined;

  constructor(private readonly origin: string) {}

  noteCall(id: string, data: Data): void {
    this.calls.set(id, { ...this.calls.get(id), ...data });
  }

  noteReasoning(data: Data): void {
    this.reasoning = { ...this.reasoning, ...data };
  }

  get empty(): boolean {
    return this.calls.size === 0 && this.reasoning === undefined;
  }

  call(block: ToolCallBlock): ToolCallBlock {
    const data = this.calls.get(block.id);
    return data ? { ...block, providerData: { origin: this.origin, data } } : block;
  }

  result(result: ChatResult): ChatResult {
    if (this.empty) return result;
    return { ...result, message: { ...result.message, content: this.content(result.message.content) } };
  }

  /**
   * Tool calls get their data on `tool_call_end` already; the reasoning data (the whole raw
   * content) is complete only at the end, so it is on the `done` result, which is what the loop
   * keeps as history.
   */
  event(event: StreamEvent): StreamEvent {
    if (event.type === "tool_call_end") return { ...event, call: this.call(event.call) };
    if (event.type === "done") return { ...event, result: this.result(event.result) };
    return event;
  }

  /** Reasoning data goes on the first reasoning block: the one a replay looks for. */
  private content(blocks: AssistantContent[]): AssistantContent[] {
    let reasoningPending = this.reasoning !== undefined;
    return blocks.map((block) => {
      if (block.type === "tool_call") return this.call(block);
      if (block.type === "reasoning" && reasoningPending && this.reasoning) {
        reasoningPending = false;
        return { ...block, providerData: { origin: this.origin, data: this.reasoning } };
      }
      return block;
    });
  }
}
