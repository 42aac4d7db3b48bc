/** Shared helpers of the quirk tests (not a test file itself). */
import type { AssistantMessage, ChatRequest, ChatResult, Message, StreamEvent, ToolCallBlock, ToolDefinition, ToolMessage } from "../../../src/core/index.ts";
import { createOpenAIChatAdapter } from "../../../src/adapters/openai-chat/index.ts";
import { resolveQuirks } from "../../../src/adapters/quirks/index.ts";
import type { ModelAdapter } from "../../../src/adapters/types.ts";
import type { StrictFake } from "../../helpers/strict-fakes/index.ts";

export const PROVIDER = "prov";
export type Mode = "complete" | "stream";
export const MODES: Mode[] = ["complete", "stream"];

export const TOOLS: ToolDefinition[] = [
  { name: "get_weather", description: "Current weather", inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
  { name: "get_time", description: "Local time", inputSchema: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] } },
];

export const RESULTS: Record<string, string> = { get_weather: "18°C, sunny", get_time: "14:05" };

/** An adapter with a preset (or preset + overrides) for a strict fake, or for any base URL. */
export function adapterFor(target: StrictFake | string, quirks: string | Record<string, unknown>, id = PROVIDER): ModelAdapter {
  const baseURL = typeof target === "string" ? target : target.url;
  return createOpenAIChatAdapter({ id, baseURL, apiKey: "test-key" }, { quirks: resolveQuirks(quirks).switches });
}

export function opening(): Message[] {
  return [
    { role: "system", content: [{ type: "text", text: "You are a helpful assistant." }] },
    { role: "user", content: [{ type: "text", text: "What is the weather and the time in Paris?" }] },
  ];
}

export function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "model-x", messages, tools: TOOLS, toolChoice: { type: "auto" }, parallelToolCalls: true, ...extra };
}

export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** One model call, streamed or not; a stream's result is its `done` event's. */
export async function callModel(adapter: ModelAdapter, chat: ChatRequest, mode: Mode): Promise<ChatResult> {
  if (mode === "complete") return adapter.complete(chat);
  const events = await collect(adapter.stream(chat));
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error(`stream did not end with done: ${JSON.stringify(last)}`);
  return last.result;
}

export function callsOf(message: AssistantMessage): ToolCallBlock[] {
  return message.content.filter((block): block is ToolCallBlock => block.type === "tool_call");
}

export function textOf(message: AssistantMessage): string {
  return message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
}

/** The results of a turn's calls, as the loop would send them (one tool message). */
export function toolResults(calls: ToolCallBlock[]): ToolMessage {
  return {
    role: "tool",
    content: calls.map((call) => ({
      type: "tool_result",
      callId: call.id,
      name: call.name,
      content: [{ type: "text", text: RESULTS[call.name] ?? "ok" }],
      isError: false,
    })),
  };
}

/**
 * The scripted conversation: the question, the model's parallel calls, their results, the final
 * answer. Returns both turns; throws whatever the adapter throws.
 */
export async function converse(adapter: ModelAdapter, mode: Mode, extra: Partial<ChatRequest> = {}, start: Message[] = opening()) {
  const messages = [...start];
  const first = await callModel(adapter, request(messages, extra), mode);
  messages.push(first.message, toolResults(callsOf(first.message)));
  const second = await callModel(adapter, request(messages, extra), mode);
  return { first, second, messages: [...messages, second.message] };
}

/** Awaits a rejection and returns the error (fails if the promise resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}
