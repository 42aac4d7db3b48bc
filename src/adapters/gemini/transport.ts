/**
 * Where and how a Gemini request goes: `{baseURL}/models/{model}:generateContent`, or
 * `:streamGenerateContent?alt=sse`, POSTed with the gateway's fetch (undici; no SDK client on the
 * request path). Google AI Studio by default, its key as `x-goog-api-key`; Vertex AI by its base
 * URL (`https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google`)
 * and, with `auth: "bearer"`, an OAuth access token as `Authorization: Bearer`.
 */
import { nativeSignal } from "../../core/abort-controller.ts";
import { fastFetch } from "../../core/fast-fetch.ts";
import type { AdapterOptions } from "../types.ts";

export const DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta";
/** How long a call may wait on Google (a whole answer, or the silence between two stream chunks). */
export const DEFAULT_TIMEOUT_MS = 600_000;

/** How the provider's `apiKey` is sent. */
export type GeminiAuth = "api-key" | "bearer";

export interface GeminiOptions {
  /** `api-key` (default): `x-goog-api-key`; `bearer`: `Authorization: Bearer` (Vertex AI access tokens). */
  auth?: GeminiAuth;
}

export type GeminiMethod = "generateContent" | "streamGenerateContent" | "countTokens";

/** Vertex AI, whose countTokens takes the request's fields directly. */
export function isVertex(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname.endsWith("aiplatform.googleapis.com");
  } catch {
    return false;
  }
}

export class GeminiTransport {
  readonly baseURL: string;
  readonly vertex: boolean;
  private readonly headers: Record<string, string>;
  private readonly fetch: typeof fetch;

  constructor(options: AdapterOptions, gemini: GeminiOptions = {}) {
    this.baseURL = (options.baseURL ?? DEFAULT_BASE_URL).replace(/\/+$/, "");
    this.vertex = isVertex(this.baseURL);
    this.fetch = options.fetch ?? fastFetch;
    this.headers = { "content-type": "application/json", ...authHeaders(options.apiKey, gemini.auth), ...options.headers };
  }

  /** A model named with its own path (`tunedModels/x`, `publishers/google/models/x`) is taken as given. */
  url(model: string, method: GeminiMethod): string {
    const path = model.includes("/") ? model : `models/${model}`;
    return `${this.baseURL}/${path}:${method}${method === "streamGenerateContent" ? "?alt=sse" : ""}`;
  }

  post(model: string, method: GeminiMethod, body: unknown, signal: AbortSignal | undefined): Promise<Response> {
    return this.fetch(this.url(model, method), {
      method: "POST",
      headers: method === "streamGenerateContent" ? { ...this.headers, accept: "text/event-stream" } : this.headers,
      body: JSON.stringify(body),
      // A fetch of the caller's may link it to other signals: Node's own signal.
      ...(signal ? { signal: nativeSignal(signal) } : {}),
    });
  }
}

export function authHeaders(apiKey: string | undefined, auth: GeminiAuth | undefined): Record<string, string> {
  if (!apiKey) return {};
  return auth === "bearer" ? { authorization: `Bearer ${apiKey}` } : { "x-goog-api-key": apiKey };
}
