/** Shared bits of the Anthropic adapter tests. */
import type { ChatRequest, Message, StreamEvent } from "../../../src/core/index.ts";
import { GatewayError } from "../../../src/core/index.ts";
import { createAnthropicAdapter } from "../../../src/adapters/anthropic/index.ts";
import type { AdapterOptions, ModelAdapter } from "../../../src/adapters/types.ts";

export const PROVIDER = "anthropic";

export function adapterAt(baseURL: string, options: Partial<AdapterOptions> = {}): ModelAdapter {
  return createAnthropicAdapter({ id: PROVIDER, baseURL, apiKey: "test-key", ...options });
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "claude-haiku-4-5", messages, ...extra };
}

export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

/** Runs the stream to its end and returns the GatewayError it threw (fails if it did not throw one). */
export async function streamError(events: AsyncIterable<StreamEvent>): Promise<{ error: GatewayError; seen: StreamEvent[] }> {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    if (error instanceof GatewayError) return { error, seen };
    throw new Error(`expected a GatewayError, got ${String(error)}`);
  }
  throw new Error(`the stream ended without an error after ${seen.length} events`);
}

export async function completeError(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw new Error(`expected a GatewayError, got ${String(error)}`);
  }
  throw new Error("expected the call to fail");
}

/** The event types in order, with deltas collapsed, for asserting the sequence of a stream. */
export function eventTypes(events: StreamEvent[]): string[] {
  return events.map((event) => event.type).filter((type, i, all) => !(type.endsWith("_delta") && all[i - 1] === type));
}

export function lastResult(events: StreamEvent[]) {
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error(`the stream did not end with done but with ${done?.type}`);
  return done.result;
}
