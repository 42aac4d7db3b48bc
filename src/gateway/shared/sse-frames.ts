/**
 * A streamed answer's frames: the loop read up to the commit, then its events written by the
 * door's writer in bursts, its end or failure, the keep-alive and the cancel — whichever sink
 * writes them (src/gateway/shared/sse-pump.ts: a web ReadableStream; src/gateway/http/direct-sse.ts:
 * Node's ServerResponse directly). The sink pulls: it asks for the next burst once it has
 * written the last, so a slow client slows the loop instead of growing a buffer.
 */
import { toGatewayError } from "../../core/index.ts";
import { inCurrentRequest } from "../../core/request-context.ts";
import type { LoopBatches, LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { SseWriter } from "./sse-pump.ts";

type Step = IteratorResult<LoopEvent[], LoopOutcome>;

/** What the frames are made from (the headers are the sink's: `sseHeaders` in ./sse-pump.ts). */
export interface FrameOptions {
  /** The loop's events in batches (those of one upstream read together). */
  loop: LoopBatches;
  writer: SseWriter;
  controller: AbortController;
  heartbeatMs: number;
  /** Runs before the closing frames (hidden steps are saved here, before the client can follow up). */
  beforeFinish?: (outcome: LoopOutcome) => Promise<unknown> | void;
  /** Removes secrets from a failure's message before the client sees it. */
  scrub?: (text: string) => string;
  /**
   * Told of each of the loop's events as the pump takes it from the loop (not when it is
   * written: the events before the commit are held), and of the loop's failure: the request's
   * observation. Here rather than as a wrapper of the loop, which cost a promise per event.
   */
  observer?: { event(event: LoopEvent): void; failed(error: unknown): void };
}

/** One streamed answer's frames, for whichever sink writes them. */
export interface SseFrames {
  /**
   * The next burst of frames, joined into one write ("" only with the end). The first is the
   * head (the frames of the loop's steps through the one that commits), given at once, unless
   * `head()` gave it; what the loop makes after it is the next. Never rejects: a failure becomes
   * the door's closing frames.
   */
  next(): Promise<string>;
  /**
   * The head, when it is ready and not yet given (the first burst of an answer still going), for
   * a sink that writes it with the response's head without waiting for a pull; undefined
   * otherwise (`next` gives it then).
   */
  head(): string | undefined;
  /** The last burst has been given: the sink ends the body once it has written it. */
  readonly ended: boolean;
  /**
   * Starts the keep-alive (one timer per stream, not one per event): while tools run and nothing
   * is written, `write` gets a heartbeat frame so that proxies and clients keep the connection.
   * Stopped by the end and by `cancel`.
   */
  keepAlive(write: (frame: string) => void): void;
  /** The client went away: the loop is aborted and closed, `finished` resolves with undefined. */
  cancel(reason?: unknown): void;
  /**
   * The sink has written the last burst (after `ended`): `finished` resolves now, so that what
   * follows a stream's end (its access line, its observation's end) comes after its last bytes
   * are written, not before them.
   */
  settle(): void;
  /** Settles when the stream has ended and its sink has written the end (or failed, or was cancelled). */
  readonly finished: Promise<LoopOutcome | undefined>;
}

/** A burst joined into one write stops growing here (a source that never pauses still streams). */
const MAX_BURST_CHARS = 64 * 1024;

/**
 * Events that make the response visible (or long-running): the point of no return for HTTP
 * errors. A failure before that (the loop's `error` event) must still become a proper HTTP
 * error with its status and retry-after, so it does not commit.
 */
function commits(event: LoopEvent): boolean {
  return event.type !== "turn_start" && event.type !== "model_start" && event.type !== "usage" && event.type !== "model_response" && event.type !== "error";
}

/**
 * Reads the loop up to the commit and returns the stream's frames. Errors thrown here (before
 * any byte is sent) become ordinary HTTP error responses.
 */
export async function startSse(options: FrameOptions): Promise<SseFrames> {
  const { loop, writer, controller, observer } = options;
  // Every step the loop gives, taken once, wherever the pump takes it.
  const taken = (step: Step): Step => {
    if (!step.done && observer) for (const event of step.value) observer.event(event);
    return step;
  };
  const writeEach = (events: LoopEvent[]) => {
    for (const event of events) push(writer.event(event));
  };
  // The loop's step being waited for, if any (a burst that ended before it came leaves it here).
  let pending: Promise<Step> | undefined;
  const nextStep = async (): Promise<Step> => {
    pending ??= loop.next();
    try {
      return taken(await pending);
    } catch (error) {
      observer?.failed(error);
      throw error;
    } finally {
      pending = undefined;
    }
  };
  /**
   * Closes the loop where it stopped, as a cancel does: when a writer fails between its steps, its
   * upstream call (and the retry layer's count of calls in flight) must end with the answer.
   */
  const closeLoop = () => void loop.return(undefined as never).catch(() => undefined);
  const head: LoopEvent[] = [];
  // Where in `head` the first event that commits is (-1: none yet).
  let commit = -1;
  let first: Step;
  do {
    first = await nextStep();
    if (first.done) break;
    for (const event of first.value) {
      if (commit < 0 && commits(event)) commit = head.length;
      head.push(event);
    }
  } while (commit < 0);

  let resolveFinished!: (outcome: LoopOutcome | undefined) => void;
  // What `finished` resolves with once the sink has written the end (undefined after a failure).
  let ending: LoopOutcome | undefined;
  const finished = new Promise<LoopOutcome | undefined>((resolve) => (resolveFinished = resolve));
  const queue: string[] = [];
  let queuedChars = 0;
  const push = (text: string) => {
    if (text === "") return;
    queue.push(text);
    queuedChars += text.length;
  };
  // What came before the commit (which model answers, the turn) is the writer's to know before it
  // opens the response; none of it is visible on its own.
  const opening = commit < 0 ? head : head.slice(0, commit);
  try {
    writeEach(opening);
    push(writer.open());
    writeEach(head.slice(opening.length));
  } catch (error) {
    closeLoop();
    throw error;
  }
  if (first.done) pending = Promise.resolve(first);
  // Whether the next pull is the first of an answer still going: see `next`. (One the loop ended
  // before it committed is whole already, and leaves in one write.)
  let headPending = !first.done;
  // Whether the last burst has been given is `frames.ended` (a data property: see below).

  const emit = async (step: Step): Promise<void> => {
    if (!step.done) {
      writeEach(step.value);
      return;
    }
    const outcome = step.value;
    const finishing = options.beforeFinish?.(outcome);
    if (finishing) await finishing;
    push(writer.finish(outcome));
    frames.ended = true;
    ending = outcome;
  };
  const fail = (error: unknown) => {
    // A writer that failed leaves the loop where it stopped (a loop that failed has ended: no-op).
    closeLoop();
    const failure = toGatewayError(error);
    push(writer.fail(options.scrub ? failure.withMessage(options.scrub(failure.message)) : failure));
    frames.ended = true;
  };

  /**
   * Writes the steps the loop has ready before the event loop's next check phase (what it makes
   * of the reads already received: a burst), stopping at the end or at MAX_BURST_CHARS. A step
   * that is not ready by then stays pending for the next pull. One callback per step, not a race
   * and an async call per step (a step is a batch: the events of one upstream read).
   */
  const takeBurst = () =>
    new Promise<void>((resolve, reject) => {
      let over = false;
      const stop = (error?: unknown) => {
        if (over) return;
        over = true;
        clearImmediate(checkPhase);
        if (error === undefined) resolve();
        else reject(error);
      };
      const checkPhase = setImmediate(() => {
        over = true;
        resolve();
      });
      const take = (step: Step) => {
        if (over) return;
        pending = undefined;
        taken(step);
        try {
          if (step.done) return void emit(step).then(() => stop(), (error: unknown) => stop(error ?? new Error("the stream's end failed")));
          writeEach(step.value);
        } catch (error) {
          return stop(error ?? new Error("a stream event could not be written"));
        }
        next();
      };
      const next = (): void => {
        if (frames.ended || queuedChars >= MAX_BURST_CHARS) return stop();
        pending ??= loop.next();
        pending.then(take, (error: unknown) => {
          if (over) return;
          pending = undefined;
          observer?.failed(error);
          stop(error ?? new Error("the stream failed"));
        });
      };
      next();
    });

  let lastWrite = Date.now();
  let heartbeat: NodeJS.Timeout | undefined;
  /** What is queued, as one write. */
  const burst = (): string => {
    lastWrite = Date.now();
    const text = queue.join("");
    queue.length = 0;
    queuedChars = 0;
    return text;
  };
  // `ended` is a data property, not a getter: an object literal with a getter gets a hidden class
  // of its own per stream, kept in old space, and that held each stream's objects until a full GC
  // (docs/performance.md).
  const frames: Mutable<SseFrames> = {
    // In the request's async context when it has one (at debug level: src/core/request-context.ts),
    // so that the lines the loop writes carry its id, whoever pulls.
    next: inCurrentRequest(async (): Promise<string> => {
      try {
        // The head (the frames of the loop's steps through the one that commits: an upstream read
        // each, for a short answer all of its text) leaves at once, with the response's head,
        // rather than with what the loop makes after it (for a short answer, its end and the
        // closing frames): the client's first byte 4% sooner at one connection
        // (docs/performance.md), for one more write per stream.
        const headFirst = headPending && queue.length > 0;
        headPending = false;
        if (!headFirst) {
          while (queue.length === 0 && !frames.ended) await emit(await nextStep());
          // Events the loop can produce without waiting on the network (the rest of an upstream
          // read, a burst of tokens) leave in the same write: one syscall per burst, not per token.
          await takeBurst();
        }
      } catch (error) {
        pending = undefined;
        fail(error);
      }
      if (frames.ended) clearInterval(heartbeat);
      return queue.length === 0 ? "" : burst();
    }),
    head() {
      if (!headPending || queue.length === 0) return undefined;
      headPending = false;
      return burst();
    },
    ended: false,
    keepAlive(write) {
      heartbeat = setInterval(() => {
        if (frames.ended || Date.now() - lastWrite < options.heartbeatMs) return;
        lastWrite = Date.now();
        write(writer.heartbeat);
      }, Math.max(10, Math.floor(options.heartbeatMs / 2)));
      heartbeat.unref();
    },
    settle() {
      clearInterval(heartbeat);
      resolveFinished(ending);
    },
    cancel(reason) {
      clearInterval(heartbeat);
      controller.abort(reason);
      void loop.return(undefined as never).catch(() => undefined);
      resolveFinished(undefined);
    },
    finished,
  };
  return frames;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
