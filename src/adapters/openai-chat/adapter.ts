import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import { nativeSignal } from "../../core/abort-controller.ts";
import { eachEvent } from "../../core/event-batches.ts";
import { translatedBatches } from "../stream-batches.ts";
import { abortedError } from "../http-error.ts";
import { createOpenAIClient, DEFAULT_OPENAI_TIMEOUT_MS, OPENAI_ERRORS } from "../openai-client.ts";
import { SdkHead } from "../sdk-head.ts";
import { UpstreamHttp } from "../upstream-http.ts";
import { IdleAbort } from "../idle-abort.ts";
import { PRESETS } from "../quirks/presets.ts";
import { RequestQuirks } from "../quirks/request/index.ts";
import type { QuirkSwitches } from "../quirks/types.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { toGatewayErrorFromOpenAI } from "./errors.ts";
import { Exchange, type ExchangeOptions } from "./exchange.ts";
import { sseChunkBatches } from "./sse-chunks.ts";
import type { RequestOptions } from "./to-request.ts";

/** Per-provider wire choices: the seam the quirk presets fill in. Defaults suit api.openai.com. */
export interface OpenAIChatWireOptions {
  /**
   * The provider's quirk switches, usually `resolveQuirks(config.quirks).switches`
   * (src/adapters/quirks). The `openai` preset when absent. Read when the adapter is created:
   * changing the object afterwards does not change the adapter.
   */
  quirks?: QuirkSwitches;
}

/** The SDK's default request timeout, also used as the stream idle limit when none is configured. */
const DEFAULT_TIMEOUT_MS = DEFAULT_OPENAI_TIMEOUT_MS;

export function createOpenAIChatAdapter(options: AdapterOptions, wire: OpenAIChatWireOptions = {}): ModelAdapter {
  const client = createOpenAIClient(options);
  const provider = options.id;
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Chat calls go out through the gateway's transport with the URL and headers the SDK would use.
  const head = new SdkHead(client, "/chat/completions");
  const http = new UpstreamHttp(OPENAI_ERRORS, idleMs, options.fetch);
  // A copy: the request steps are built from it once, and every call must see the same switches.
  const quirks: QuirkSwitches = { ...(wire.quirks ?? PRESETS.openai) };
  const requestOptions: RequestOptions = { maxTokensField: quirks.maxTokensField, openaiOnlyFields: quirks.openaiOnlyFields, reasoningRequest: quirks.reasoningRequest };
  const exchangeOptions: ExchangeOptions = { provider, quirks, requestQuirks: new RequestQuirks(provider, quirks), requestOptions };
  const exchange = (request: ChatRequest) => new Exchange(request, exchangeOptions);

  // Not streamed: the timeout for the answer's headers is the transport's, so the caller's signal
  // goes to it as is (no idle clock, and no extra AbortController per request).
  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const call = exchange(request);
    try {
      const { url, headers } = await head.get();
      const body = await http.json({ url, headers, body: JSON.stringify(call.body), signal });
      return call.fromCompletion(body);
    } catch (error) {
      throw call.error(signal?.aborted ? abortedError(provider, error) : toGatewayErrorFromOpenAI(error, provider));
    }
  }

  // A batch of events per read of the body (../stream-batches.ts); `stream` has them one by one.
  async function* streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[]> {
    const control = new IdleAbort(signal, idleMs);
    const call = exchange(request);
    try {
      const { url, headers } = await head.get();
      const response = await http.stream({ url, headers, body: JSON.stringify(call.streamingBody), signal: control.signal });
      control.arm();
      // No renaming on the way out: the exchange's translation puts the client's names back.
      yield* translatedBatches(sseChunkBatches(response, control.signal), call.streamTranslation(), control);
    } catch (error) {
      throw call.error(control.interruption(provider, error) ?? toGatewayErrorFromOpenAI(error, provider));
    } finally {
      control.dispose();
    }
  }

  async function embed(body: { [key: string]: unknown }, signal?: AbortSignal): Promise<unknown> {
    try {
      // The SDK's `embeddings.create` would ask for base64 and decode it: the raw endpoint keeps the client's choice.
      // The SDK's own code: Node's own signal (src/core/abort-controller.ts).
      return await (await client).post("/embeddings", { body, ...(signal ? { signal: nativeSignal(signal) } : {}) });
    } catch (error) {
      throw signal?.aborted ? abortedError(provider, error) : toGatewayErrorFromOpenAI(error, provider);
    }
  }

  return { id: provider, complete, stream: (request, signal) => eachEvent(streamBatches(request, signal)), streamBatches, embed };
}
