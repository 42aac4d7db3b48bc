/**
 * The `openai` SDK client both OpenAI-protocol adapters (Chat Completions and Responses) use,
 * built once per provider. Retries and fallbacks belong to the gateway (maxRetries 0); base URL
 * and key are always passed and the OPENAI_* organization/project/webhook settings pinned, so the
 * gateway config is the only source; logging is off (failures reach the caller as GatewayErrors,
 * and in stdio mode stdout is the MCP channel).
 *
 * The SDK's client module is loaded when the first provider of its protocol is made, not when the
 * gateway starts: it is 150 modules and about 14 MB that a gateway without such a provider never
 * needs. Only its error classes (openai/core/error, a few KB) load with the adapters.
 */
import type OpenAI from "openai";
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai/core/error";
import { fastFetch } from "../core/fast-fetch.ts";
import { normalizeErrorBody } from "./openai-chat/error-body.ts";
import type { AdapterOptions } from "./types.ts";
import type { SdkErrors } from "./upstream-http.ts";

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
/** The SDK's default request timeout, also used as the stream idle limit when none is configured. */
export const DEFAULT_OPENAI_TIMEOUT_MS = 600_000;

type ClientClass = new (options: ConstructorParameters<typeof OpenAI>[0]) => OpenAI;
let clientClass: Promise<ClientClass> | undefined;

/**
 * The SDK keeps an error body only when it has an `error` key; Mistral, vLLM and Gemini's
 * compatible endpoint send other shapes, whose message would be lost. They are put in that
 * shape first (see openai-chat/error-body.ts).
 */
function loadClientClass(): Promise<ClientClass> {
  return (clientClass ??= import("openai").then(
    ({ default: Base }) =>
      class Client extends Base {
        protected override makeStatusError(status: number, error: object, message: string | undefined, headers: Headers) {
          return super.makeStatusError(status, normalizeErrorBody(error), message, headers);
        }
      },
  ));
}

export async function createOpenAIClient(options: AdapterOptions): Promise<OpenAI> {
  const Client = await loadClientClass();
  return new Client({
    baseURL: options.baseURL ?? DEFAULT_OPENAI_BASE_URL,
    // Local servers need no key, but the SDK refuses to start without one.
    apiKey: options.apiKey || "not-needed",
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    defaultHeaders: options.headers,
    timeout: options.timeoutMs ?? DEFAULT_OPENAI_TIMEOUT_MS,
    maxRetries: 0,
    fetch: options.fetch ?? fastFetch,
    logLevel: "off",
  });
}

/** The openai SDK's errors for the gateway's transport: what its own request path throws. */
export const OPENAI_ERRORS: SdkErrors = {
  // As the Client above: the body put in the shape the SDK reads first.
  status: (status, json, text, headers) => APIError.generate(status, normalizeErrorBody(json), text, headers),
  connection: (cause) => new APIConnectionError({ cause }),
  timeout: () => new APIConnectionTimeoutError(),
  aborted: () => new APIUserAbortError(),
};
