/**
 * Streaming: loop events as `chat.completion.chunk` SSE, ending in `data: [DONE]`.
 *
 * Headers are committed only once the client would see something (or tools start running):
 * a failure before that — bad upstream key, unknown model at the provider — is still answered
 * as a proper HTTP error. Later failures end the stream with an error chunk and `[DONE]`.
 * Pull-based, so a slow client slows the loop instead of growing a buffer, and a client that
 * goes away cancels the stream, which aborts the loop.
 */
import { toGatewayError } from "../../core/index.ts";
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import { ChunkBuilder } from "../openai/chunks.ts";
import { toFinishReason } from "../openai/finish-reason.ts";
import { gatewayInfo } from "../openai/gateway-info.ts";
import type { ChatDeps } from "./context.ts";
import type { PreparedChat } from "./prepare.ts";
import { newResponseMeta, rememberHiddenSteps, startLoop } from "./run.ts";

type Step = IteratorResult<LoopEvent, LoopOutcome>;

const encoder = new TextEncoder();
const frame = (payload: object | string) => `data: ${typeof payload === "string" ? payload : JSON.stringify(payload)}\n\n`;
const HEARTBEAT = encoder.encode(": keep-alive\n\n");

/** A burst joined into one write stops growing here (a source that never pauses still streams). */
const MAX_BURST_CHARS = 64 * 1024;

/** Resolves in the event loop's next check phase: after everything already received is handled. */
const nextCheckPhase = () => new Promise<undefined>((resolve) => setImmediate(() => resolve(undefined)));

/**
 * Events that make the response visible (or long-running): the point of no return for HTTP
 * errors. A failure before that (the loop's `error` event) must still become a proper HTTP
 * error with its status and retry-after, so it does not commit.
 */
function commits(event: LoopEvent): boolean {
  return event.type !== "turn_start" && event.type !== "usage" && event.type !== "model_response" && event.type !== "error";
}

export interface StreamHandle {
  response: Response;
  /** Settles when the stream has ended (finished, failed or cancelled). */
  finished: Promise<LoopOutcome | undefined>;
}

export async function streamChat(prepared: PreparedChat, deps: ChatDeps, controller: AbortController, headers: Record<string, string>): Promise<StreamHandle> {
  const loop = startLoop(prepared, deps, true, controller.signal);
  const chunks = new ChunkBuilder(newResponseMeta().id, prepared.model.requested, Math.floor(Date.now() / 1000));
  const head: LoopEvent[] = [];
  // Errors thrown here (before any byte is sent) become ordinary HTTP error responses.
  let first: Step;
  do {
    first = await loop.next();
    if (!first.done) head.push(first.value);
  } while (!first.done && !commits(first.value));

  let resolveFinished!: (outcome: LoopOutcome | undefined) => void;
  const finished = new Promise<LoopOutcome | undefined>((resolve) => (resolveFinished = resolve));
  const queue: string[] = [];
  let queuedChars = 0;
  const push = (...frames: string[]) => {
    for (const text of frames) {
      queue.push(text);
      queuedChars += text.length;
    }
  };
  push(frame(chunks.opening()));
  let pending: Promise<Step> | undefined = first.done ? Promise.resolve(first) : undefined;
  let ended = false;

  const emit = async (step: Step): Promise<void> => {
    if (!step.done) {
      const chunk = chunks.fromEvent(step.value);
      if (chunk) push(frame(chunk));
      return;
    }
    const outcome = step.value;
    await rememberHiddenSteps(outcome, deps, prepared.tenant);
    push(frame(chunks.finish(toFinishReason(outcome.stopReason), gatewayInfo(outcome))));
    if (prepared.includeUsage) push(frame(chunks.usage(outcome.usage)));
    push(frame("[DONE]"));
    ended = true;
    resolveFinished(outcome);
  };
  const fail = (error: unknown) => {
    const failure = toGatewayError(error);
    const visible = deps.scrub ? failure.withMessage(deps.scrub(failure.message)) : failure;
    push(frame(visible.toJSON()), frame("[DONE]"));
    ended = true;
    resolveFinished(undefined);
  };
  for (const event of head) await emit({ done: false, value: event });
  const nextStep = async (): Promise<Step> => {
    pending ??= loop.next();
    const step = await pending;
    pending = undefined;
    return step;
  };

  const heartbeatMs = deps.heartbeatMs ?? 10_000;
  let lastWrite = Date.now();
  let heartbeat: NodeJS.Timeout | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(stream) {
      // One timer per stream (not one per event): while tools run and nothing is written, an
      // SSE comment keeps proxies and clients from timing the connection out.
      heartbeat = setInterval(() => {
        if (ended || Date.now() - lastWrite < heartbeatMs) return;
        lastWrite = Date.now();
        stream.enqueue(HEARTBEAT);
      }, Math.max(10, Math.floor(heartbeatMs / 2)));
      heartbeat.unref();
    },
    async pull(stream) {
      try {
        while (queue.length === 0 && !ended) await emit(await nextStep());
        // Events the loop can produce without waiting on the network (the rest of an upstream
        // read, a burst of tokens) leave in the same write: one syscall per burst, not per token.
        while (!ended && queuedChars < MAX_BURST_CHARS) {
          pending ??= loop.next();
          const ready = await Promise.race([pending, nextCheckPhase()]);
          if (!ready) break;
          pending = undefined;
          await emit(ready);
        }
      } catch (error) {
        pending = undefined;
        fail(error);
      }
      if (queue.length > 0) {
        lastWrite = Date.now();
        stream.enqueue(encoder.encode(queue.join("")));
        queue.length = 0;
        queuedChars = 0;
      }
      if (ended) {
        clearInterval(heartbeat);
        stream.close();
      }
    },
    cancel(reason) {
      clearInterval(heartbeat);
      controller.abort(reason);
      void loop.return(undefined as never).catch(() => undefined);
      resolveFinished(undefined);
    },
  });
  return {
    response: new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", ...headers },
    }),
    finished,
  };
}

