/** Shared bits of the OpenAI Responses adapter tests (not a test file itself). */
import type { ServerResponse } from "node:http";
import { GatewayError, type ChatRequest, type ChatResult, type Message, type StreamEvent } from "../../../src/core/index.ts";
import { createOpenAIResponsesAdapter } from "../../../src/adapters/openai-responses/index.ts";
import type { AdapterOptions, ModelAdapter } from "../../../src/adapters/types.ts";
import { chunkLines, sendSse } from "../../helpers/fake-upstream.ts";

export const PROVIDER = "responses";

export function adapterAt(baseURL: string, options: Partial<AdapterOptions> = {}): ModelAdapter {
  return createOpenAIResponsesAdapter({ id: PROVIDER, baseURL: `${baseURL}/v1`, apiKey: "test-key", ...options });
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "gpt-5-mini", messages, ...extra };
}

/** A Responses event as one SSE frame, named by its type as OpenAI names them. */
export function sseFrame(event: unknown): string {
  const data = typeof event === "string" ? event : JSON.stringify(event);
  const type = (JSON.parse(data) as { type: string }).type;
  return `event: ${type}\ndata: ${data}\n\n`;
}

export function sseBody(events: unknown[]): string {
  return events.map(sseFrame).join("");
}

/** Opens an SSE response and writes frames without ending it (the test ends or cuts it). */
export function openSse(res: ServerResponse, events: unknown[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(sseBody(events));
}

export function sendEvents(res: ServerResponse, events: unknown[]): void {
  sendSse(res, sseBody(events));
}

/** The payload lines of a `*.chunks.txt` fixture, split into its responses (each begins with response.created). */
export function recordedResponses(fixture: string): string[][] {
  const responses: string[][] = [];
  for (const line of chunkLines(fixture)) {
    if ((JSON.parse(line) as { type: string }).type === "response.created") responses.push([]);
    responses.at(-1)!.push(line);
  }
  return responses;
}

/** The parsed events of a recorded response. */
export function parsed(lines: string[]): Array<{ type: string; [key: string]: any }> {
  return lines.map((line) => JSON.parse(line) as { type: string; [key: string]: any });
}

export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

export function lastResult(events: StreamEvent[]): ChatResult {
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error(`the stream did not end with done but with ${done?.type}`);
  return done.result;
}

/** The event types in order, with runs of one delta type collapsed. */
export function eventTypes(events: StreamEvent[]): string[] {
  return events.map((event) => event.type).filter((type, i, all) => !(type.endsWith("_delta") && all[i - 1] === type));
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
