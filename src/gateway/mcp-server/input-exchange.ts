/**
 * Multi-round-trip requests of the 2026-07-28 era (InputRequiredResult), for requests whose
 * upstream servers ask the client something mid-call.
 *
 * A 2026-07-28 client cannot be sent a request: when an upstream server (of either era) asks for
 * sampling, elicitation or roots while serving a client's `tools/call`, `prompts/get` or
 * `resources/read`, the gateway answers that request with an InputRequiredResult carrying the
 * question, and keeps the upstream call waiting. The client answers and retries with
 * `inputResponses` and the `requestState` it was given; the answers go to the waiting upstream
 * server, and the retry waits for the call's result (or its next question).
 *
 * The upstream call lives between rounds in this process: the retry must reach the same gateway
 * instance (a retry elsewhere gets "unknown requestState"). Requests that ask nothing — nearly
 * all — keep no state at all. An exchange whose client does not come back within `timeoutMs`
 * is ended (its questions fail upstream). Closing a round's stream cancels the exchange.
 */
import { randomUUID } from "node:crypto";
import type { InputRequiredResult } from "@modelcontextprotocol/server";
import type { Logger } from "../../core/logger.ts";
import { ErrorCode, mcpError } from "./errors.ts";
import type { ClientRequest, RequestExtra } from "./types.ts";

/** What the work of an exchange gets: its own signal (all rounds), a way to ask the client, and the extra to forward with. */
export interface ExchangeChannel {
  ask(request: ClientRequest): Promise<unknown>;
  /** The first round's extra, with the exchange's signal and notifications sent on the current round's stream. */
  extra: RequestExtra;
}

interface Question {
  request: ClientRequest;
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

interface Exchange {
  id: string;
  /** Whose exchange it is (the key's name or digest): another caller cannot resume it. */
  owner: string | undefined;
  outcome: Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }>;
  controller: AbortController;
  /** Asked, not yet sent to the client. */
  queued: Map<string, Question>;
  /** Sent in the last InputRequiredResult, waiting for the client's retry. */
  sent: Map<string, Question>;
  /** Wakes the round waiting for a question or the outcome. */
  wake: (() => void) | undefined;
  current: RequestExtra;
  expiry: NodeJS.Timeout | undefined;
  questions: number;
}

/** The gateway's own requestStates start so; any other is an upstream server's, passed back to it. */
const STATE_PREFIX = "mcp-gateway-exchange:";

/** Whether a requestState is one the gateway minted (else it belongs to a 2026-07-28 upstream server). */
export function isExchangeState(state: string | undefined): state is string {
  return state !== undefined && state.startsWith(STATE_PREFIX);
}

export class InputExchanges {
  private readonly open = new Map<string, Exchange>();

  constructor(private readonly options: { timeoutMs: number; logger: Logger }) {}

  get size(): number {
    return this.open.size;
  }

  /**
   * One round of a request: the first (no requestState) starts `work`; a retry hands the
   * client's answers to the questions waiting, then waits again. Resolves with the work's result,
   * or an InputRequiredResult when it asks the client something.
   */
  async round<R>(ctx: RequestExtra, owner: string | undefined, work: (channel: ExchangeChannel) => Promise<R>): Promise<R | InputRequiredResult> {
    const state = ctx.mcpReq.requestState<string>();
    const exchange = isExchangeState(state) ? this.resume(state, ctx, owner) : this.start(ctx, owner, work);
    return (await this.next(exchange, ctx)) as R | InputRequiredResult;
  }

  private start<R>(ctx: RequestExtra, owner: string | undefined, work: (channel: ExchangeChannel) => Promise<R>): Exchange {
    const controller = new AbortController();
    const exchange: Exchange = { id: `${STATE_PREFIX}${randomUUID()}`, owner, controller, queued: new Map(), sent: new Map(), wake: undefined, current: ctx, expiry: undefined, questions: 0, outcome: undefined! };
    const extra: RequestExtra = {
      ...ctx,
      mcpReq: { ...ctx.mcpReq, signal: controller.signal, notify: (notification) => exchange.current.mcpReq.notify(notification) },
    };
    const ask = (request: ClientRequest) =>
      new Promise<unknown>((resolve, reject) => {
        if (controller.signal.aborted) return reject(mcpError(ErrorCode.RequestTimeout, "The client's request was cancelled"));
        exchange.queued.set(`input-${++exchange.questions}`, { request, resolve, reject });
        exchange.wake?.();
      });
    exchange.outcome = work({ ask, extra }).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    return exchange;
  }

  private resume(state: string, ctx: RequestExtra, owner: string | undefined): Exchange {
    const exchange = this.open.get(state);
    if (!exchange || exchange.owner !== owner) throw mcpError(ErrorCode.InvalidParams, "Unknown or expired requestState (a retry must reach the gateway instance that answered the first round, within its time limit)");
    clearTimeout(exchange.expiry);
    exchange.current = ctx;
    const answers = ctx.mcpReq.inputResponses ?? {};
    for (const [key, question] of exchange.sent) {
      if (!(key in answers)) continue;
      exchange.sent.delete(key);
      question.resolve(answers[key]);
    }
    // Questions the retry left unanswered are asked again.
    for (const [key, question] of exchange.sent) exchange.queued.set(key, question);
    exchange.sent.clear();
    return exchange;
  }

  /** Waits for the work's outcome or its next questions (this round's cancellation cancels the exchange). */
  private async next(exchange: Exchange, ctx: RequestExtra): Promise<unknown> {
    const cancelled = () => this.end(exchange, mcpError(ErrorCode.RequestTimeout, "The client's request was cancelled"));
    ctx.mcpReq.signal.addEventListener("abort", cancelled, { once: true });
    try {
      const woken = new Promise<"question">((resolve) => (exchange.wake = () => resolve("question")));
      if (exchange.queued.size > 0) exchange.wake?.();
      const first = await Promise.race([exchange.outcome, woken]);
      exchange.wake = undefined;
      if (first !== "question") {
        this.end(exchange);
        if (first.ok) return first.value;
        throw first.error;
      }
      return this.inputRequired(exchange);
    } finally {
      ctx.mcpReq.signal.removeEventListener("abort", cancelled);
    }
  }

  private inputRequired(exchange: Exchange): InputRequiredResult {
    const inputRequests: Record<string, ClientRequest> = {};
    for (const [key, question] of exchange.queued) {
      inputRequests[key] = question.request;
      exchange.sent.set(key, question);
    }
    exchange.queued.clear();
    this.open.set(exchange.id, exchange);
    exchange.expiry = setTimeout(() => this.end(exchange, mcpError(ErrorCode.RequestTimeout, "The client did not answer in time")), this.options.timeoutMs);
    exchange.expiry.unref();
    return { resultType: "input_required", inputRequests, requestState: exchange.id } as InputRequiredResult;
  }

  /** Forgets the exchange; with `error`, its questions fail and its work is cancelled. */
  private end(exchange: Exchange, error?: Error): void {
    clearTimeout(exchange.expiry);
    this.open.delete(exchange.id);
    if (!error) return;
    for (const question of [...exchange.sent.values(), ...exchange.queued.values()]) question.reject(error);
    exchange.sent.clear();
    exchange.queued.clear();
    exchange.controller.abort(error);
    this.options.logger.debug({ exchange: exchange.id, err: error.message }, "input exchange ended");
  }

  /** Ends every exchange (shutdown). */
  close(): void {
    for (const exchange of [...this.open.values()]) this.end(exchange, mcpError(ErrorCode.ConnectionClosed, "The gateway is shutting down"));
  }
}
