/**
 * Can the gateway reach a provider with its key? One cheap authenticated call, used by
 * `mcp-gateway check`: a GET of the model list (OpenAI's, for Chat Completions and Responses
 * alike, Anthropic's, Google AI Studio's), or, for Vertex AI, which lists no models under a
 * project, a `countTokens` of one word (free) with the provider's first listed model.
 */
import type { ResolvedProviderConfig } from "../core/config/index.ts";
import { authHeaders, DEFAULT_BASE_URL as GEMINI_BASE_URL, isVertex } from "./gemini/transport.ts";

export interface ProbeResult {
  ok: boolean;
  ms: number;
  detail: string;
}

const DEFAULT_BASE: Record<ResolvedProviderConfig["type"], string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  "openai-responses": "https://api.openai.com/v1",
  gemini: GEMINI_BASE_URL,
};

/** The model a Vertex AI probe counts tokens with when the provider lists none. */
export const VERTEX_PROBE_MODEL = "gemini-2.5-flash";

export function probeRequest(config: ResolvedProviderConfig): { url: string; init: RequestInit } {
  const base = (config.baseURL ?? DEFAULT_BASE[config.type]).replace(/\/+$/, "");
  if (config.type === "anthropic") {
    return {
      url: `${base}/v1/models`,
      init: { headers: { "anthropic-version": "2023-06-01", ...(config.apiKey ? { "x-api-key": config.apiKey } : {}), ...config.headers } },
    };
  }
  if (config.type === "gemini") {
    const headers = { ...authHeaders(config.apiKey, config.auth), ...config.headers };
    if (!isVertex(base)) return { url: `${base}/models?pageSize=1`, init: { headers } };
    const model = config.models?.[0] ?? VERTEX_PROBE_MODEL;
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "ping" }] }] });
    return { url: `${base}/${model.includes("/") ? model : `models/${model}`}:countTokens`, init: { method: "POST", headers: { "content-type": "application/json", ...headers }, body } };
  }
  return { url: `${base}/models`, init: { headers: { ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}), ...config.headers } } };
}

export async function probeProvider(config: ResolvedProviderConfig, timeoutMs = 10_000): Promise<ProbeResult> {
  const started = performance.now();
  const { url, init } = probeRequest(config);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.ok) return { ok: true, ms: elapsed(), detail: `HTTP ${response.status}` };
    return { ok: false, ms: elapsed(), detail: `HTTP ${response.status} from ${url}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { ok: false, ms: elapsed(), detail: `cannot reach ${url}${cause ? ` (${cause})` : ""}: ${(error as Error).message}` };
  }
}
