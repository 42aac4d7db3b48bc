/** Shared bits of the Gemini adapter tests (not a test file itself). */
import { GatewayError, type ChatRequest, type ChatResult, type Message, type StreamEvent } from "../../../src/core/index.ts";
import { createGeminiAdapter, type GeminiOptions } from "../../../src/adapters/gemini/index.ts";
import type { AdapterOptions, ModelAdapter } from "../../../src/adapters/types.ts";
import { chunkLines, readFixture, sendJson, startFakeUpstream, type FakeUpstream, type Handler } from "../../helpers/fake-upstream.ts";
import { geminiHandler, sendGeminiSse, type GeminiRejection, type GeminiRuleOptions } from "../../helpers/gemini-native-fake.ts";

export const PROVIDER = "gemini";

export function adapterAt(baseURL: string, options: Partial<AdapterOptions> = {}, gemini: GeminiOptions = {}): ModelAdapter {
  return createGeminiAdapter({ id: PROVIDER, baseURL: `${baseURL}/v1beta`, apiKey: "test-key", ...options }, gemini);
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: "gemini-3-pro-preview", messages, ...extra };
}

export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const all: StreamEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

export function lastResult(events: StreamEvent[]): ChatResult {
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error(`the stream did not end with done: ${JSON.stringify(done)}`);
  return done.result;
}

export async function streamError(events: AsyncIterable<StreamEvent>): Promise<GatewayError> {
  try {
    await collect(events);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("the stream did not fail");
}

export async function completeError(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error("the call did not fail");
}

/**
 * A fake Gemini that validates every request with the strict rules, then answers with the n-th of
 * `answers`: a `*.chunks.txt` fixture (streamed, the recorded lines as the SSE data) or a JSON
 * fixture / object (the whole body).
 */
export async function replayServer(answers: (string | object)[], rules: GeminiRuleOptions = {}): Promise<FakeUpstream & { rejections: GeminiRejection[] }> {
  const rejections: GeminiRejection[] = [];
  let next = 0;
  const inner: Handler = (_req, res) => {
    const answer = answers[Math.min(next++, answers.length - 1)]!;
    if (typeof answer !== "string") return sendJson(res, 200, answer);
    if (answer.endsWith(".chunks.txt")) return sendGeminiSse(res, chunkLines(answer));
    return sendJson(res, 200, JSON.parse(readFixture(answer)));
  };
  const server = await startFakeUpstream(geminiHandler(inner, rules, rejections));
  return Object.assign(server, { rejections });
}
