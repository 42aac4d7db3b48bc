/** Shared helpers of the OpenAI chat adapter tests (not a test file itself). */
import type { ServerResponse } from "node:http";
import type { ChatRequest, ChatResult, StreamEvent } from "../../../src/core/index.ts";
import type { AdapterOptions, ModelAdapter } from "../../../src/adapters/types.ts";
import { createOpenAIChatAdapter, type OpenAIChatWireOptions } from "../../../src/adapters/openai-chat/index.ts";
import {
  chunkLines,
  openAiSseFromChunks,
  readFixture,
  sendJson,
  sendSse,
  type FakeUpstream,
  type Handler,
} from "../../helpers/fake-upstream.ts";

export const PROVIDER = "test-provider";

export function adapterFor(
  upstream: FakeUpstream,
  options: Partial<AdapterOptions> = {},
  wire: OpenAIChatWireOptions = {},
): ModelAdapter {
  return createOpenAIChatAdapter({ id: PROVIDER, baseURL: `${upstream.url}/v1`, ...options }, wire);
}

export function simpleRequest(model = "test-model"): ChatRequest {
  return { model, messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] };
}

/** Serves a raw SSE body (a `.bin`/`.sse` fixture) byte-for-byte. */
export function rawSse(fixture: string): Handler {
  const body = readFixture(fixture);
  return (_req, res) => sendSse(res, body);
}

/** Serves a `*.chunks.txt` fixture framed as OpenAI SSE ending in [DONE]. */
export function chunksSse(fixture: string): Handler {
  const body = openAiSseFromChunks(chunkLines(fixture));
  return (_req, res) => sendSse(res, body);
}

/** Serves a JSON fixture body as is. */
export function jsonBody(fixture: string, status = 200, headers: Record<string, string> = {}): Handler {
  const body = readFixture(fixture);
  return (_req, res) => sendJson(res, status, body, headers);
}

export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

export function doneResult(events: StreamEvent[]): ChatResult {
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error(`stream did not end with done: ${JSON.stringify(last)}`);
  return last.result;
}

export function eventTypes(events: StreamEvent[]): string[] {
  return events.map((event) => event.type);
}

/** Event types with consecutive runs of the same delta type collapsed, for readable order checks. */
export function eventOutline(events: StreamEvent[]): string[] {
  const outline: string[] = [];
  for (const type of eventTypes(events)) {
    if (type.endsWith("_delta") && outline.at(-1) === `${type}*`) continue;
    outline.push(type.endsWith("_delta") ? `${type}*` : type);
  }
  return outline;
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

/** Writes SSE headers, then some frames, then lets the test decide how the response ends. */
export function startSse(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const frame of frames) res.write(`data: ${frame}\n\n`);
}

export function chunk(delta: object, finishReason: string | null = null, extra: object = {}): string {
  return JSON.stringify({
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    created: 1,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...extra,
  });
}
