/**
 * The model the loop talks to: the request's candidates tried in order, each with retries for
 * retryable failures (backoff, retry-after honoured, bounded attempts and total wait). A stream
 * is retried or handed to a fallback only before anything visible has come out of it. Works
 * mid-loop too: every call gets the whole neutral history, which each adapter converts to its
 * own protocol (dropping provider data it cannot accept), and the MCP tools are re-normalized
 * when the fallback speaks another schema dialect.
 */
import { toGatewayError, type ChatModel, type ChatRequest, type GatewayError, type SchemaTarget, type StreamEvent, type ToolDefinition, type ToolSet } from "../../core/index.ts";
import { extend } from "../../core/extend.ts";
import type { Logger } from "../../core/logger.ts";
import type { DeploymentHooks } from "./deployments.ts";
import type { ModelCandidate } from "./resolve-model.ts";
import { batchesOf, eachEvent } from "../../core/event-batches.ts";
import { retryDelay, shouldFallBack, sleep, type RetryPolicy } from "./retry-policy.ts";

/** What trying a call's candidates needs: its retries, fallbacks and deployments' hooks. */
export interface CandidateOptions {
  candidates: ModelCandidate[];
  policy: RetryPolicy;
  logger: Logger;
  /** The request's id, on every line this model call logs. */
  requestId?: string;
  /** Told about calls to an alias's deployments (in-flight counts, cooldowns). */
  deployments?: DeploymentHooks;
  /** Told about retries and fallbacks (the request's observation: metrics, timeline, trace). */
  observer?: ModelCallObserver;
}

export interface ResilientOptions extends CandidateOptions {
  /** The gateway's tools of this request, to re-normalize for another dialect. */
  tools: ToolSet;
  /** The dialect the loop normalized the tools to (the first candidate's). */
  schemaTarget: SchemaTarget;
}

/** Who a model call goes to: a candidate's provider (config name) and model id. */
export interface ModelTarget {
  provider: string;
  model: string;
}

/** What happens inside one model call, for whoever observes the request. */
export interface ModelCallObserver {
  retry(target: ModelTarget, attempt: number, delayMs: number, error: GatewayError): void;
  fallback(from: ModelTarget, to: ModelTarget, error: GatewayError): void;
}

const notTracked = () => {};


/** Events that mean the client may already have seen output: no retry after these. */
const isVisible = (event: StreamEvent) => event.type !== "start" && event.type !== "usage";

/** Where a model call is in its candidates and retries, and what to do after a failure. */
class Attempts {
  #index: number;
  #attempt = 1;
  #waited = 0;

  constructor(
    private readonly options: CandidateOptions,
    private readonly signal: AbortSignal | undefined,
    start: number,
  ) {
    this.#index = start;
  }

  get candidate(): ModelCandidate {
    return this.options.candidates[this.#index]!;
  }

  get index(): number {
    return this.#index;
  }

  /**
   * After a failed attempt: resolves when the next one may start (after a backoff, or on the
   * next candidate), or throws the failure when there is none (output already visible, the
   * caller gone, attempts or wait budget used up, nowhere to fall back to).
   */
  async next(thrown: unknown, visible: boolean): Promise<void> {
    const error = toGatewayError(thrown);
    if (visible || this.signal?.aborted) throw error;
    const { policy, logger, candidates } = this.options;
    const candidate = this.candidate;
    const delay = retryDelay(error, this.#attempt, policy);
    if (delay !== undefined && this.#waited + delay <= policy.budgetMs) {
      logger.warn({ requestId: this.options.requestId, provider: candidate.provider.name, attempt: this.#attempt, delayMs: delay, err: error.message }, "retrying upstream call");
      this.options.observer?.retry({ provider: candidate.provider.name, model: candidate.modelId }, this.#attempt, delay, error);
      this.#waited += delay;
      this.#attempt++;
      await sleep(delay, this.signal);
      return;
    }
    // Given up on it after retryable failures: every instance skips it for a while. Awaited, so the
    // cooldown is recorded before this request goes on (and before its answer).
    if (error.retryable && candidate.deployment && this.options.deployments) await this.options.deployments.cooldown(candidate, error, this.options.requestId);
    const fallback = candidates[this.#index + 1];
    if (!fallback || !shouldFallBack(error)) throw error;
    logFallback(logger, candidate, fallback, error, this.options.requestId);
    this.options.observer?.fallback({ provider: candidate.provider.name, model: candidate.modelId }, { provider: fallback.provider.name, model: fallback.modelId }, error);
    this.#index++;
    this.#attempt = 1;
  }
}

/** A model call to a deployment counts as in flight until the function returned is called (least-busy). */
function beginCall(hooks: DeploymentHooks | undefined, candidate: ModelCandidate): () => void {
  return hooks && candidate.deployment ? hooks.begin(candidate) : notTracked;
}

/**
 * One call over a model's candidates (a whole chat turn, an embeddings call): the candidates from
 * `start` in order, each with its retries, a deployment given up on cooled down. Resolves with the
 * answer and the index of the candidate that gave it.
 */
export async function tryCandidates<T>(
  options: CandidateOptions,
  signal: AbortSignal | undefined,
  call: (candidate: ModelCandidate) => Promise<T>,
  start = 0,
): Promise<{ result: T; index: number }> {
  const attempts = new Attempts(options, signal, start);
  for (;;) {
    const candidate = attempts.candidate;
    const end = beginCall(options.deployments, candidate);
    try {
      const result = await call(candidate);
      end();
      return { result, index: attempts.index };
    } catch (thrown) {
      end();
      await attempts.next(thrown, false);
    }
  }
}

/** What one request's model keeps between its calls: its options, and where its next call starts. */
interface CallState {
  readonly options: ResilientOptions;
  /** The candidate that answered last (a fallback, after the primary failed past its retries). */
  start: number;
}

/**
 * One per request. Once a fallback has answered, the request's later model calls (the next
 * turns of its agent loop) start there: the primary just failed past its retries, and trying it
 * again on every turn would add its retries and backoff to each. The next request starts at the
 * primary again.
 */
export function resilientModel(options: ResilientOptions): ChatModel {
  const state: CallState = { options, start: 0 };
  // An arrow around the module's generator function: a generator function made per request
  // would cost every streamed request a full GC's worth of memory (see streamBatchesOf).
  const streamBatches = (request: ChatRequest, signal?: AbortSignal) => streamBatchesOf(state, request, signal);
  // Plain loops, no generator per attempt: this is on every request's path (and, streamed, on
  // every event's).
  return {
    async complete(request, signal) {
      const answered = await tryCandidates(options, signal, (candidate) => candidate.provider.adapter.complete(forCandidate(options, request, candidate), signal), state.start);
      state.start = answered.index;
      return extend(answered.result, { provider: options.candidates[answered.index]!.provider.name });
    },
    stream: (request, signal) => eachEvent(streamBatches(request, signal)),
    streamBatches,
  };
}

/** The request for one candidate: its model id, and the gateway's tools in its schema dialect. */
function forCandidate(options: ResilientOptions, request: ChatRequest, candidate: ModelCandidate): ChatRequest {
  return {
    ...request,
    model: candidate.modelId,
    ...(request.tools ? { tools: retargetTools(request.tools, options.tools, options.schemaTarget, candidate.provider.schemaTarget) } : {}),
  };
}

/**
 * Streamed: the adapter's batches (one per upstream read) pass as they are, a step per read.
 *
 * A generator function of the module, with the request's state passed in, not one defined inside
 * resilientModel: a generator function made per request has a prototype object of its own, and
 * the hidden class V8 makes for its generators (allocated in old space) points at it, so that
 * prototype and everything its closure reaches (the request's options, observation, Hono
 * context...) survived every scavenge and waited for a full GC. Measured with --trace-gc-nvp on a
 * streamed pass-through at one connection: about 8 KB promoted per request by this alone
 * (docs/performance.md).
 */
async function* streamBatchesOf(state: CallState, request: ChatRequest, signal?: AbortSignal): AsyncGenerator<StreamEvent[], void, undefined> {
  const { options } = state;
  const attempts = new Attempts(options, signal, state.start);
  for (;;) {
    const candidate = attempts.candidate;
    const name = candidate.provider.name;
    let visible = false;
    const end = beginCall(options.deployments, candidate);
    try {
      for await (const batch of batchesOf(candidate.provider.adapter, forCandidate(options, request, candidate), signal)) {
        visible ||= batch.some(isVisible);
        yield batch.map((event) => (event.type === "start" || event.type === "done" ? answeredBy(event, name) : event));
      }
      end();
      state.start = attempts.index;
      return;
    } catch (thrown) {
      end();
      await attempts.next(thrown, visible);
    } finally {
      // The consumer stopped early (client gone): the call is over too.
      end();
    }
  }
}

function logFallback(logger: Logger, from: ModelCandidate, to: ModelCandidate, error: GatewayError, requestId: string | undefined): void {
  const message = to.deployment ? "trying the next deployment" : "falling back to the next provider";
  logger.warn({ requestId, from: `${from.provider.name}/${from.modelId}`, to: `${to.provider.name}/${to.modelId}`, err: error.message, status: error.status }, message);
}

/** Which provider answered: the routing layer knows, the adapter does not. */
function answeredBy(event: StreamEvent, provider: string): StreamEvent {
  if (event.type === "start") return extend(event, { provider });
  if (event.type === "done") return extend(event, { result: extend(event.result, { provider }) });
  return event;
}

/** The gateway's tools re-normalized for another dialect; the client's tools stay as they are. */
export function retargetTools(tools: ToolDefinition[], gatewayTools: ToolSet, from: SchemaTarget, to: SchemaTarget): ToolDefinition[] {
  if (from === to) return tools;
  // Only the gateway's own definitions are swapped (recognised by identity: the registry caches
  // them), so a client tool that happens to share a name keeps its own schema.
  const ours = new Set(gatewayTools.definitions(from));
  const normalized = new Map(gatewayTools.definitions(to).map((d) => [d.name, d]));
  // A tool marked deferLoading is a copy of one of ours (loop tool-search.ts): swapped too, and sent in full.
  return tools.map((tool) => (ours.has(tool) || tool.deferLoading ? (normalized.get(tool.name) ?? tool) : tool));
}
