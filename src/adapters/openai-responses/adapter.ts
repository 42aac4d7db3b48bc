import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import { eachEvent } from "../../core/event-batches.ts";
import { translatedBatches } from "../stream-batches.ts";
import { extend } from "../../core/extend.ts";
import { abortedError } from "../http-error.ts";
import { createOpenAIClient, DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_TIMEOUT_MS, OPENAI_ERRORS } from "../openai-client.ts";
import { SdkHead, withHeaders } from "../sdk-head.ts";
import { UpstreamHttp } from "../upstream-http.ts";
import { IdleAbort } from "../idle-abort.ts";
import { renameFunctions } from "../neutral-names.ts";
import { OPENAI_FUNCTION_NAMES } from "../quirks/function-names.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { fromOpenAIResponsesError } from "./errors.ts";
import { fromResponse } from "./from-response.ts";
import { responseStreamBatches } from "./sse-events.ts";
import { streamTranslation } from "./stream.ts";
import { toWireParams } from "./to-request.ts";
import { offeredTools } from "./tools.ts";
import type { Response, WireParams } from "./wire.ts";

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

/** A ModelAdapter for the OpenAI Responses API (`POST /v1/responses`) and servers that speak it. */
export function createOpenAIResponsesAdapter(options: AdapterOptions): ModelAdapter {
  const provider = options.id;
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Calls go out through the gateway's transport with the URL and headers the SDK would use.
  const head = new SdkHead(createOpenAIClient(options), "/responses");
  const http = new UpstreamHttp(OPENAI_ERRORS, idleMs, options.fetch);

  // Not streamed: the timeout for the answer's headers is the transport's, so the caller's signal goes to it as is.
  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    // A client's tool names OpenAI refuses (`fs.read`) go out renamed and come back as they were.
    const names = renameFunctions(request, OPENAI_FUNCTION_NAMES);
    try {
      const { params, headers } = wireRequest(names.request, request, provider);
      const to = await head.get();
      const response = await http.json({ url: to.url, headers: withHeaders(to, headers), body: JSON.stringify(params), signal });
      return names.result(fromResponse(response as Response, provider, request.model));
    } catch (error) {
      // An abort while the body is read surfaces as whatever fetch threw then; the signal tells the truth.
      throw signal?.aborted ? abortedError(provider, error) : fromOpenAIResponsesError(provider, error);
    }
  }

  /** Reads the raw event stream and assembles it ourselves, so every event is seen and mapped. */
  // A batch of events per read of the body (../stream-batches.ts); `stream` has them one by one.
  async function* streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
    const guard = new IdleAbort(signal, idleMs);
    const names = renameFunctions(request, OPENAI_FUNCTION_NAMES);
    try {
      const { params, headers } = wireRequest(names.request, request, provider);
      const to = await head.get();
      const body = JSON.stringify(extend(params, { stream: true }));
      const response = await http.stream({ url: to.url, headers: withHeaders(to, headers), body, signal: guard.signal });
      guard.arm();
      // The terminal response ends the reading (translation.finished).
      yield* translatedBatches(responseStreamBatches(response, guard.signal), streamTranslation(provider, request.model), guard, (event) => names.event(event));
    } catch (error) {
      throw guard.interruption(provider, error) ?? fromOpenAIResponsesError(provider, error);
    } finally {
      guard.dispose();
    }
  }

  return { id: provider, complete, stream: (request, signal) => eachEvent(streamBatches(request, signal)), streamBatches };
}
