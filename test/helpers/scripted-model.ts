/**
 * In-memory models and tools for testing the loop without HTTP: a model that answers from a
 * script (recording each request), and a tool set of plain functions.
 */
import type {
  AssistantContent,
  ChatRequest,
  ChatResult,
  SchemaTarget,
  StreamEvent,
  ToolCallBlock,
  ToolCallContext,
  ToolDefinition,
  ToolResultBlock,
  ToolSet,
} from "../../src/core/index.ts";

export type Reply = AssistantContent[] | ((request: ChatRequest) => AssistantContent[]);

export function call(id: string, name: string, args: Record<string, unknown> = {}): ToolCallBlock {
  return { type: "tool_call", id, name, arguments: args, rawArguments: JSON.stringify(args) };
}

export function text(value: string): AssistantContent {
  return { type: "text", text: value };
}

export class ScriptedModel {
  readonly requests: ChatRequest[] = [];
  private turn = 0;
  constructor(private readonly replies: Reply[]) {}

  private next(request: ChatRequest): ChatResult {
    this.requests.push(structuredClone(request));
    const reply = this.replies[Math.min(this.turn++, this.replies.length - 1)]!;
    const content = typeof reply === "function" ? reply(request) : reply;
    const hasCalls = content.some((b) => b.type === "tool_call");
    return {
      id: `resp_${this.turn}`,
      model: request.model,
      message: { role: "assistant", content },
      stopReason: hasCalls ? "tool_calls" : "stop",
      usage: { inputTokens: 10, outputTokens: 5 },
    };
  }

  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    signal?.throwIfAborted();
    return this.next(request);
  }

  async *stream(request: ChatRequest, signal?: AbortSignal): AsyncIterable<StreamEvent> {
    signal?.throwIfAborted();
    const result = this.next(request);
    yield { type: "start", id: result.id, model: result.model };
    let index = 0;
    for (const block of result.message.content) {
      if (block.type === "text") {
        yield { type: "text_start" };
        // Two deltas per text, to prove deltas are forwarded, not buffered into one.
        const half = Math.ceil(block.text.length / 2);
        yield { type: "text_delta", delta: block.text.slice(0, half) };
        yield { type: "text_delta", delta: block.text.slice(half) };
        yield { type: "text_end", text: block.text };
      } else if (block.type === "reasoning") {
        yield { type: "reasoning_start" };
        yield { type: "reasoning_delta", delta: block.text };
        yield { type: "reasoning_end", block };
      } else if (block.type === "tool_call") {
        yield { type: "tool_call_start", index, id: block.id, name: block.name };
        yield { type: "tool_call_delta", index, id: block.id, delta: block.rawArguments };
        yield { type: "tool_call_end", index, call: block };
        index++;
      }
    }
    yield { type: "usage", usage: result.usage };
    yield { type: "done", result };
  }
}

export type ToolFn = (args: Record<string, unknown>, context: ToolCallContext) => Promise<string> | string;

export class MemoryTools implements ToolSet {
  readonly calls: ToolCallBlock[] = [];
  constructor(private readonly fns: Record<string, ToolFn>) {}

  definitions(_target: SchemaTarget): ToolDefinition[] {
    return Object.keys(this.fns).map((name) => ({ name, description: `tool ${name}`, inputSchema: { type: "object", properties: {} } }));
  }

  has(name: string): boolean {
    return name in this.fns;
  }

  async call(block: ToolCallBlock, context: ToolCallContext): Promise<ToolResultBlock> {
    this.calls.push(block);
    const output = await this.fns[block.name]!(block.arguments, context);
    return { type: "tool_result", callId: block.id, name: block.name, content: [{ type: "text", text: output }], isError: false };
  }
}

/** A promise with its resolve exposed (synchronise on events, never on sleeps). */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
