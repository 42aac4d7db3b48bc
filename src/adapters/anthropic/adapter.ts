import Anthropic from "@anthropic-ai/sdk";
import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import { fastFetch } from "../../core/fast-fetch.ts";
import { abortedError } from "../http-error.ts";
import { renameFunctions } from "../neutral-names.ts";
import { ANTHROPIC_FUNCTION_NAMES } from "../quirks/function-names.ts";
import { IdleAbort } from "../idle-abort.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { fromAnthropicError } from "./errors.ts";
import { fromMessage } from "./from-response.ts";
import { messageStreamEvents } from "./sse-events.ts";
import { toStreamEvents } from "./stream.ts";
import { toWireParams } from "./to-request.ts";

export const DEFAULT_BASE_URL = "https://api.anthropic.com";
/** The SDK's own default; also how long a started stream may stay silent. */
export const DEFAULT_TIMEOUT_MS = 600_000;
/** Keyless Anthropic-compatible servers (local proxies) still get a syntactically valid request. */
const PLACEHOLDER_API_KEY = "no-api-key";

/**
 * The SDK client, built once per adapter. Retries belong to the gateway (maxRetries 0). The base
 * URL and key are always passed so the SDK never falls back to ANTHROPIC_* environment variables
 * or credential files: the gateway config is the only source. The SDK's logging is off because
 * every failure reaches the caller as a GatewayError, and in stdio mode stdout is the MCP channel.
 */
function createClient(options: AdapterOptions): Anthropic {
  return new Anthropic({
    apiKey: options.apiKey || PLACEHOLDER_API_KEY,
    baseURL: options.baseURL ?? DEFAULT_BASE_URL,
    // Always set, which also keeps the SDK from refusing large non-streamed max_tokens up front.
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxRetries: 0,
    logLevel: "off",
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
    fetch: options.fetch ?? fastFetch,
  });
}

/** A ModelAdapter for the Anthropic Messages API (and servers that speak it). */
export function createAnthropicAdapter(options: AdapterOptions): ModelAdapter {
  const client = createClient(options);
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    // A client's tool names Anthropic refuses (`fs.read`) go out renamed and come back as they were.
    const names = renameFunctions(request, ANTHROPIC_FUNCTION_NAMES);
    try {
      // `stream` is left out rather than sent as false (as the official SDKs do); one set via `extra` is overruled.
      const { stream: _stream, ...params } = toWireParams(names.request, options);
      const message = await client.messages.create(params, { signal });
      return names.result(fromMessage(message, options.id));
    } catch (error) {
      // An abort while the body is read surfaces as whatever fetch threw then; the signal tells the truth.
      throw signal?.aborted ? abortedError(options.id, error) : fromAnthropicError(options.id, error);
    }
  }

  /** Reads the raw event stream and assembles it ourselves, so every event is seen and mapped. */
  async function* stream(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent, void, undefined> {
    const guard = new IdleAbort(signal, idleMs);
    const names = renameFunctions(request, ANTHROPIC_FUNCTION_NAMES);
    try {
      const params = toWireParams(names.request, options);
      const response = await client.messages.create({ ...params, stream: true }, { signal: guard.signal }).asResponse();
      guard.arm();
      for await (const event of toStreamEvents(messageStreamEvents(response, guard.signal), options.id)) {
        guard.pause();
        yield names.event(event);
        guard.arm();
      }
    } catch (error) {
      throw guard.interruption(options.id, error) ?? fromAnthropicError(options.id, error);
    } finally {
      guard.dispose();
    }
  }

  return { id: options.id, complete, stream };
}
