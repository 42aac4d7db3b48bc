import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import { abortedError } from "../http-error.ts";
import { createOpenAIClient, DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_TIMEOUT_MS } from "../openai-client.ts";
import { IdleAbort } from "../idle-abort.ts";
import { renameFunctions } from "../neutral-names.ts";
import { OPENAI_FUNCTION_NAMES } from "../quirks/function-names.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { fromOpenAIResponsesError } from "./errors.ts";
import { fromResponse } from "./from-response.ts";
import { responseStreamEvents } from "./sse-events.ts";
import { toStreamEvents } from "./stream.ts";
import { toWireParams } from "./to-request.ts";
import { offeredTools } from "./tools.ts";
import type { ResponseCreateParamsNonStreaming, WireParams } from "./wire.ts";

export const DEFAULT_BASE_URL = DEFAULT_OPENAI_BASE_URL;
/** The SDK's default request timeout, also how long a started stream may stay silent. */
export const DEFAULT_TIMEOUT_MS = DEFAULT_OPENAI_TIMEOUT_MS;

/** One call's body and the headers to forward (a Responses client's own, on a pass-through). */
function wireRequest(request: ChatRequest, original: ChatRequest, origin: string): { params: WireParams; headers?: Record<string, string> } {
  const toolNames = new Set(offeredTools(original.tools).map((tool) => tool.name));
  const params = toWireParams(request, { origin, toolNames });
  const passthrough = request.passthrough;
  return passthrough?.protocol === "openai-responses" && Object.keys(passthrough.headers).length > 0 ? { params, headers: passthrough.headers } : { params };
}

/** The SDK's param type cannot name verbatim items; it sends whatever the object holds. */
const sdkParams = (params: WireParams): ResponseCreateParamsNonStreaming => params as unknown as ResponseCreateParamsNonStreaming;

/** A ModelAdapter for the OpenAI Responses API (`POST /v1/responses`) and servers that speak it. */
export function createOpenAIResponsesAdapter(options: AdapterOptions): ModelAdapter {
  const client = createOpenAIClient(options);
  const provider = options.id;
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  // Not streamed: the SDK's own timeout covers the whole call, so the caller's signal goes to it as is.
  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    // A client's tool names OpenAI refuses (`fs.read`) go out renamed and come back as they were.
    const names = renameFunctions(request, OPENAI_FUNCTION_NAMES);
    try {
      const { params, headers } = wireRequest(names.request, request, provider);
      const response = await client.responses.create(sdkParams(params), { ...(signal ? { signal } : {}), ...(headers ? { headers } : {}) });
      return names.result(fromResponse(response, provider, request.model));
    } catch (error) {
      // An abort while the body is read surfaces as whatever fetch threw then; the signal tells the truth.
      throw signal?.aborted ? abortedError(provider, error) : fromOpenAIResponsesError(provider, error);
    }
  }

  /** Reads the raw event stream and assembles it ourselves, so every event is seen and mapped. */
  async function* stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent, void, undefined> {
    const guard = new IdleAbort(signal, idleMs);
    const names = renameFunctions(request, OPENAI_FUNCTION_NAMES);
    try {
      const { params, headers } = wireRequest(names.request, request, provider);
      const body = { ...sdkParams(params), stream: true as const };
      const response = await client.responses.create(body, { signal: guard.signal, ...(headers ? { headers } : {}) }).asResponse();
      guard.arm();
      for await (const event of toStreamEvents(responseStreamEvents(response, guard.signal), provider, request.model)) {
        guard.pause();
        yield names.event(event);
        guard.arm();
      }
    } catch (error) {
      throw guard.interruption(provider, error) ?? fromOpenAIResponsesError(provider, error);
    } finally {
      guard.dispose();
    }
  }

  return { id: provider, complete, stream };
}
