import OpenAI from "openai";
import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { CallControl } from "./call-control.ts";
import { toGatewayErrorFromOpenAI } from "./errors.ts";
import { fromChatCompletion } from "./from-response.ts";
import type { ReasoningField } from "./reasoning.ts";
import { translateStream } from "./stream.ts";
import { toChatCompletionParams, toStreamingParams, type RequestOptions } from "./to-request.ts";
import type { WireChunk } from "./wire-types.ts";

/** Per-provider wire choices: the seam the quirk presets fill in. Defaults suit api.openai.com. */
export interface OpenAIChatWireOptions {
  /** See RequestOptions.maxTokensField. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Send this provider's own reasoning back in this assistant-message field (off by default). */
  reasoningField?: ReasoningField;
}

const DEFAULT_BASE_URL = "https://api.openai.com/v1";
/** The SDK's default request timeout, also used as the stream idle limit when none is configured. */
const DEFAULT_TIMEOUT_MS = 600_000;

function createClient(options: AdapterOptions): OpenAI {
  return new OpenAI({
    baseURL: options.baseURL ?? DEFAULT_BASE_URL,
    // Local servers need no key, but the SDK refuses to start without one.
    apiKey: options.apiKey || "not-needed",
    // Pinned so OPENAI_* environment variables meant for OpenAI never reach another provider.
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    defaultHeaders: options.headers,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: 0, // retries and fallbacks belong to the gateway
    fetch: options.fetch,
    // Failures reach the caller as GatewayErrors (with the SDK error as cause); no console noise.
    logLevel: "off",
  });
}

/** A ModelAdapter for the Chat Completions API of OpenAI and every OpenAI-compatible server. */
export function createOpenAIChatAdapter(options: AdapterOptions, wire: OpenAIChatWireOptions = {}): ModelAdapter {
  const client = createClient(options);
  const provider = options.id;
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const requestOptions: RequestOptions = {
    ...(wire.maxTokensField === undefined ? {} : { maxTokensField: wire.maxTokensField }),
    ...(wire.reasoningField === undefined ? {} : { echoReasoning: { field: wire.reasoningField, origin: provider } }),
  };

  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const control = new CallControl(signal, idleMs);
    try {
      const body = await client.chat.completions.create(toChatCompletionParams(request, requestOptions), {
        signal: control.signal,
      });
      return fromChatCompletion(body, { provider, model: request.model });
    } catch (error) {
      throw toGatewayErrorFromOpenAI(error, provider, control);
    } finally {
      control.dispose();
    }
  }

  async function* stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    const control = new CallControl(signal, idleMs);
    try {
      const chunks = await client.chat.completions.create(toStreamingParams(request, requestOptions), {
        signal: control.signal,
      });
      control.touch();
      yield* translateStream(watch(chunks, control), { provider, model: request.model });
    } catch (error) {
      throw toGatewayErrorFromOpenAI(error, provider, control);
    } finally {
      control.dispose();
    }
  }

  return { id: provider, protocol: "openai-chat", complete, stream };
}

/** Runs the idle clock only while waiting on the upstream, not while the consumer works. */
async function* watch(chunks: AsyncIterable<WireChunk>, control: CallControl): AsyncGenerator<WireChunk> {
  for await (const chunk of chunks) {
    control.pause();
    yield chunk;
    control.touch();
  }
}
