/**
 * Can the gateway reach a provider with its key? One cheap authenticated GET of the model
 * list (every protocol has one: OpenAI's, for Chat Completions and Responses alike, and
 * Anthropic's), used by `mcp-gateway check`.
 */
import type { ResolvedProviderConfig } from "../core/config/index.ts";

export interface ProbeResult {
  ok: boolean;
  ms: number;
  detail: string;
}

const DEFAULT_BASE: Record<ResolvedProviderConfig["type"], string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  "openai-responses": "https://api.openai.com/v1",
};

function modelsRequest(config: ResolvedProviderConfig): { url: string; headers: Record<string, string> } {
  const base = (config.baseURL ?? DEFAULT_BASE[config.type]).replace(/\/+$/, "");
  if (config.type === "anthropic") {
    return {
      url: `${base}/v1/models`,
      headers: { "anthropic-version": "2023-06-01", ...(config.apiKey ? { "x-api-key": config.apiKey } : {}), ...config.headers },
    };
  }
  return { url: `${base}/models`, headers: { ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}), ...config.headers } };
}

export async function probeProvider(config: ResolvedProviderConfig, timeoutMs = 10_000): Promise<ProbeResult> {
  const started = performance.now();
  const { url, headers } = modelsRequest(config);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    if (response.ok) return { ok: true, ms: elapsed(), detail: `HTTP ${response.status}` };
    return { ok: false, ms: elapsed(), detail: `HTTP ${response.status} from ${url}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { ok: false, ms: elapsed(), detail: `cannot reach ${url}${cause ? ` (${cause})` : ""}: ${(error as Error).message}` };
  }
}
