import type Anthropic from "@anthropic-ai/sdk";
import { eachEvent } from "../../core/event-batches.ts";
import { translatedBatches } from "../stream-batches.ts";
import type { ChatRequest, ChatResult, StreamEvent } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import { fastFetch } from "../../core/fast-fetch.ts";
import { abortedError } from "../http-error.ts";
import { renameFunctions } from "../neutral-names.ts";
import { ANTHROPIC_FUNCTION_NAMES } from "../quirks/function-names.ts";
import { IdleAbort } from "../idle-abort.ts";
import type { AdapterOptions, ModelAdapter } from "../types.ts";
import { SdkHead, withHeaders } from "../sdk-head.ts";
import { UpstreamHttp } from "../upstream-http.ts";
import { ANTHROPIC_ERRORS, fromAnthropicError } from "./errors.ts";
import { fromMessage } from "./from-response.ts";
import { messageStreamBatches } from "./sse-events.ts";
import { streamTranslation } from "./stream.ts";
import { passthroughParams } from "./passthrough.ts";
import { toWireParams } from "./to-request.ts";
import type { WireParams } from "./wire.ts";
import type { Message, MessageCountTokensParams } from "@anthropic-ai/sdk/resources/messages";

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
 * Its module (250 modules, about 25 MB) loads when the first Anthropic provider is made, not when
 * the gateway starts; only its error classes (@anthropic-ai/sdk/core/error) load with the adapter.
 */
async function createClient(options: AdapterOptions): Promise<Anthropic> {
  const { default: Anthropic } = await import("@anthropic-ai/sdk");
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

/** The body, and the headers to forward: a client of Anthropic's own protocol gets a faithful pass-through. */
function wireRequest(request: ChatRequest, options: AdapterOptions): { params: WireParams; headers?: Record<string, string> } {
  const passthrough = request.passthrough;
  if (passthrough?.protocol !== "anthropic-messages") return { params: toWireParams(request, options) };
  return { params: passthroughParams(request, passthrough, options), headers: passthrough.headers };
}

/**
 * What `messages.create` makes of the params: `user_profile_id` and `workspace_id` go as the
 * headers anthropic-user-profile-id and anthropic-workspace-id (before the call's own), not in the body.
 */
function createCall(params: WireParams, headers: Record<string, string> | undefined): { body: string; headers: Record<string, string> | undefined } {
  const record = params as unknown as Record<string, unknown>;
  if (record["user_profile_id"] == null && record["workspace_id"] == null) return { body: JSON.stringify(params), headers };
  const { user_profile_id: profile, workspace_id: workspace, ...body } = record;
  const moved: Record<string, string> = {
    ...(profile != null ? { "anthropic-user-profile-id": String(profile) } : {}),
    ...(workspace != null ? { "anthropic-workspace-id": String(workspace) } : {}),
  };
  return { body: JSON.stringify(body), headers: { ...moved, ...headers } };
}

/** The fields `count_tokens` takes (it refuses the others, `max_tokens` and sampling among them). */
const COUNT_TOKENS_FIELDS = ["model", "messages", "system", "tools", "tool_choice", "thinking", "context_management", "mcp_servers", "output_config", "output_format"];

function countTokensParams(params: WireParams): MessageCountTokensParams {
  const record = params as unknown as Record<string, unknown>;
  return Object.fromEntries(COUNT_TOKENS_FIELDS.filter((key) => record[key] !== undefined).map((key) => [key, record[key]])) as unknown as MessageCountTokensParams;
}

/** A ModelAdapter for the Anthropic Messages API (and servers that speak it). */
export function createAnthropicAdapter(options: AdapterOptions): ModelAdapter {
  const client = createClient(options);
  const idleMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Messages calls go out through the gateway's transport with the URL and headers the SDK would use.
  const head = new SdkHead(client, "/v1/messages");
  const http = new UpstreamHttp(ANTHROPIC_ERRORS, idleMs, options.fetch);

  async function post(params: WireParams, extra: Record<string, string> | undefined, signal: AbortSignal | undefined) {
    const to = await head.get();
    const call = createCall(params, extra);
    return { url: to.url, headers: withHeaders(to, call.headers), body: call.body, signal };
  }

  async function complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    // A client's tool names Anthropic refuses (`fs.read`) go out renamed and come back as they were.
    const names = renameFunctions(request, ANTHROPIC_FUNCTION_NAMES);
    try {
      // `stream` is left out rather than sent as false (as the official SDKs do); one set via `extra` is overruled.
      const { params: { stream: _stream, ...params }, headers } = wireRequest(names.request, options);
      const message = await http.json(await post(params as WireParams, headers, signal));
      return names.result(fromMessage(message as Message, options.id));
    } catch (error) {
      // An abort while the body is read surfaces as whatever fetch threw then; the signal tells the truth.
      throw signal?.aborted ? abortedError(options.id, error) : fromAnthropicError(options.id, error);
    }
  }

  /** Reads the raw event stream and assembles it ourselves, so every event is seen and mapped. */
  // A batch of events per read of the body (../stream-batches.ts); `stream` has them one by one.
  async function* streamBatches(request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
    const guard = new IdleAbort(signal, idleMs);
    const names = renameFunctions(request, ANTHROPIC_FUNCTION_NAMES);
    try {
      const { params, headers } = wireRequest(names.request, options);
      const response = await http.stream(await post(extend(params, { stream: true }), headers, guard.signal));
      guard.arm();
      // message_stop ends the reading (translation.finished).
      yield* translatedBatches(messageStreamBatches(response, guard.signal), streamTranslation(options.id), guard, (event) => names.event(event));
    } catch (error) {
      throw guard.interruption(options.id, error) ?? fromAnthropicError(options.id, error);
    } finally {
      guard.dispose();
    }
  }

  async function countTokens(request: ChatRequest, signal?: AbortSignal): Promise<number> {
    const names = renameFunctions(request, ANTHROPIC_FUNCTION_NAMES);
    try {
      const { params, headers } = wireRequest(names.request, options);
      const counted = await (await client).messages.countTokens(countTokensParams(params), { signal, ...(headers ? { headers } : {}) });
      return counted.input_tokens;
    } catch (error) {
      throw signal?.aborted ? abortedError(options.id, error) : fromAnthropicError(options.id, error);
    }
  }

  return { id: options.id, complete, stream: (request, signal) => eachEvent(streamBatches(request, signal)), streamBatches, countTokens };
}
