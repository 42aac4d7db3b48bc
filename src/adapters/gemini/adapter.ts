import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import { eachEvent } from "../../core/event-batches.ts";
import { translatedBatches } from "../stream-batches.ts";
import { IdleAbort } from "../idle-abort.ts";
import { renameFunctions } from "../neutral-names.ts";
import { GEMINI_FUNCTION_NAMES } from "../quirks/function-names.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { fromResponse } from "./assembler.ts";
import { responseError, transportError } from "./errors.ts";
import { responseChunkBatches, streamTranslation } from "./stream.ts";
import { toWireRequest, type RequestContext } from "./to-request.ts";
import { DEFAULT_TIMEOUT_MS, GeminiTransport, type GeminiOptions } from "./transport.ts";
import type { WireRequest, WireResponse } from "./wire.ts";

/**
 * A ModelAdapter for Gemini's own API (`generateContent`, `streamGenerateContent`): Google AI
 * Studio, or Vertex AI by base URL. Calls go out with the gateway's fetch; the idle clock covers
 * the wait for the answer and, in a stream, every silence between two chunks.
 */
export function createGeminiAdapter(options: AdapterOptions, gemini: GeminiOptions = {}): ModelAdapter {
  const transport = new GeminiTransport(options, gemini);
  const provider = options.id;
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const context: RequestContext = { origin: provider, defaultMaxTokens: options.defaultMaxTokens };

  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    // A client's tool names Gemini refuses (`1tool`, `github/search`) go out renamed and come back as they were.
    const names = renameFunctions(request, GEMINI_FUNCTION_NAMES);
    const guard = new IdleAbort(signal, idleMs);
    try {
      guard.arm();
      const response = await transport.post(request.model, "generateContent", toWireRequest(names.request, context), guard.signal);
      if (!response.ok) throw await responseError(provider, response);
      const body = (await response.json()) as WireResponse;
      return names.result(fromResponse(body, provider, request.model));
    } catch (error) {
      throw guard.interruption(provider, error) ?? transportError(provider, error);
    } finally {
      guard.dispose();
    }
  }

  // A batch of events per read of the body (../stream-batches.ts); `stream` has them one by one.
  async function* streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
    const names = renameFunctions(request, GEMINI_FUNCTION_NAMES);
    const guard = new IdleAbort(signal, idleMs);
    try {
      guard.arm();
      const response = await transport.post(request.model, "streamGenerateContent", toWireRequest(names.request, context), guard.signal);
      if (!response.ok) throw await responseError(provider, response);
      yield* translatedBatches(responseChunkBatches(response, guard.signal, provider), streamTranslation(provider, request.model), guard, (event) => names.event(event));
    } catch (error) {
      throw guard.interruption(provider, error) ?? transportError(provider, error);
    } finally {
      guard.dispose();
    }
  }

  /** Gemini's own count (`countTokens`), of everything the request would send. */
  async function countTokens(request: ChatRequest, signal?: AbortSignal): Promise<number> {
    const names = renameFunctions(request, GEMINI_FUNCTION_NAMES);
    const guard = new IdleAbort(signal, idleMs);
    try {
      guard.arm();
      const body = countTokensBody(toWireRequest(names.request, context), request.model, transport.vertex);
      const response = await transport.post(request.model, "countTokens", body, guard.signal);
      if (!response.ok) throw await responseError(provider, response);
      const counted = (await response.json()) as { totalTokens?: unknown };
      if (typeof counted.totalTokens !== "number") throw new SyntaxError("countTokens answered without totalTokens");
      return counted.totalTokens;
    } catch (error) {
      throw guard.interruption(provider, error) ?? transportError(provider, error);
    } finally {
      guard.dispose();
    }
  }

  return { id: provider, complete, stream: (request, signal) => eachEvent(streamBatches(request, signal)), streamBatches, countTokens };
}

/**
 * Google AI Studio counts a whole request given as `generateContentRequest` (system instruction
 * and tools included; its `model` is required); Vertex AI takes the fields themselves.
 */
export function countTokensBody(body: WireRequest, model: string, vertex: boolean): { [key: string]: unknown } {
  if (!vertex) return { generateContentRequest: { model: model.includes("/") ? model : `models/${model}`, ...body } };
  const { contents, systemInstruction, tools, generationConfig } = body;
  return { contents, ...(systemInstruction ? { systemInstruction } : {}), ...(tools ? { tools } : {}), ...(generationConfig ? { generationConfig } : {}) };
}
