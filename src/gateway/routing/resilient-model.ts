/**
 * The model the loop talks to: the request's candidates tried in order, each with retries for
 * retryable failures (backoff, retry-after honoured, bounded attempts and total wait). A stream
 * is retried or handed to a fallback only before anything visible has come out of it. Works
 * mid-loop too: every call gets the whole neutral history, which each adapter converts to its
 * own protocol (dropping provider data it cannot accept), and the MCP tools are re-normalized
 * when the fallback speaks another schema dialect.
 */
import { toGatewayError, type ChatModel, type ChatRequest, type ChatResult, type GatewayError, type SchemaTarget, type StreamEvent, type ToolDefinition, type ToolSet } from "../../core/index.ts";
import type { Logger } from "../../core/logger.ts";
import type { ModelCandidate } from "./resolve-model.ts";
import { retryDelay, shouldFallBack, sleep, type RetryPolicy } from "./retry-policy.ts";

export interface ResilientOptions {
  candidates: ModelCandidate[];
  /** The gateway's tools of this request, to re-normalize for another dialect. */
  tools: ToolSet;
  /** The dialect the loop normalized the tools to (the first candidate's). */
  schemaTarget: SchemaTarget;
  policy: RetryPolicy;
  logger: Logger;
}


/** Events that mean the client may already have seen output: no retry after these. */
const isVisible = (event: StreamEvent) => event.type !== "start" && event.type !== "usage";

export function resilientModel(options: ResilientOptions): ChatModel {
  const forCandidate = (request: ChatRequest, candidate: ModelCandidate): ChatRequest => ({
    ...request,
    model: candidate.modelId,
    ...(request.tools ? { tools: retargetTools(request.tools, options.tools, options.schemaTarget, candidate.provider.schemaTarget) } : {}),
  });

  /** Runs `attempt` over candidates and retries; `attempt` says whether a failure is still retryable. */
  async function* attempts<T>(signal: AbortSignal | undefined, attempt: (candidate: ModelCandidate) => AsyncGenerator<T, void>): AsyncGenerator<T, void> {
    let waited = 0;
    for (const [index, candidate] of options.candidates.entries()) {
      for (let n = 1; ; n++) {
        let visible = false;
        try {
          for await (const item of attempt(candidate)) {
            visible ||= (item as { visible?: boolean }).visible === true;
            yield item;
          }
          return;
        } catch (thrown) {
          const error = toGatewayError(thrown);
          if (visible || signal?.aborted) throw error;
          const delay = retryDelay(error, n, options.policy);
          if (delay !== undefined && waited + delay <= options.policy.budgetMs) {
            options.logger.warn({ provider: candidate.provider.name, attempt: n, delayMs: delay, err: error.message }, "retrying upstream call");
            waited += delay;
            await sleep(delay, signal);
            continue;
          }
          const next = options.candidates[index + 1];
          if (!next || !shouldFallBack(error)) throw error;
          logFallback(options.logger, candidate, next, error);
          break;
        }
      }
    }
  }

  return {
    async complete(request, signal) {
      let result: ChatResult | undefined;
      for await (const item of attempts(signal, async function* (candidate) {
        yield { visible: false, result: await candidate.provider.adapter.complete(forCandidate(request, candidate), signal) };
      })) {
        result = item.result;
      }
      return result!;
    },
    async *stream(request, signal) {
      for await (const item of attempts(signal, async function* (candidate) {
        for await (const event of candidate.provider.adapter.stream(forCandidate(request, candidate), signal)) yield { visible: isVisible(event), event };
      })) {
        yield item.event;
      }
    },
  };
}

function logFallback(logger: Logger, from: ModelCandidate, to: ModelCandidate, error: GatewayError): void {
  logger.warn({ from: `${from.provider.name}/${from.modelId}`, to: `${to.provider.name}/${to.modelId}`, err: error.message, status: error.status }, "falling back to the next provider");
}

/** The gateway's tools re-normalized for another dialect; the client's tools stay as they are. */
export function retargetTools(tools: ToolDefinition[], gatewayTools: ToolSet, from: SchemaTarget, to: SchemaTarget): ToolDefinition[] {
  if (from === to) return tools;
  // Only the gateway's own definitions are swapped (recognised by identity: the registry caches
  // them), so a client tool that happens to share a name keeps its own schema.
  const ours = new Set(gatewayTools.definitions(from));
  const normalized = new Map(gatewayTools.definitions(to).map((d) => [d.name, d]));
  return tools.map((tool) => (ours.has(tool) ? (normalized.get(tool.name) ?? tool) : tool));
}
