/**
 * The agent loop of a request, as its consumer (the whole-answer handler or the SSE pump) drives
 * it, with the request's observation told of each event when the loop yields it — not when a
 * writer gets it: the pump holds a stream's first events until one commits the answer, and by
 * then the loop has started its next step (the timeline and the spans would be out of order).
 * A plain object, not another async generator: no extra promise hop per token; and the loop
 * itself when nothing observes the request.
 */
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { RequestObservation } from "./request.ts";

type Loop = AsyncGenerator<LoopEvent, LoopOutcome>;
type Step = IteratorResult<LoopEvent, LoopOutcome>;

export function observedLoop(loop: Loop, observation: RequestObservation | undefined): Loop {
  if (!observation) return loop;
  const seen = (step: Step): Step => {
    if (!step.done) observation.event(step.value);
    return step;
  };
  const failed = (error: unknown): never => {
    observation.failed(error);
    throw error;
  };
  const observed: Loop = {
    next: (...args) => loop.next(...args).then(seen, failed),
    return: (value) => loop.return(value),
    throw: (error) => loop.throw(error).then(seen, failed),
    [Symbol.asyncIterator]: () => observed,
  };
  return observed;
}

/**
 * A whole answer's loop run to its outcome, each event told to the observation as the loop yields
 * it: the same as driving observedLoop to its end, with one promise per event instead of two.
 */
export async function drainLoop(loop: Loop, observation: RequestObservation | undefined): Promise<LoopOutcome> {
  try {
    for (;;) {
      const step = await loop.next();
      if (step.done) return step.value;
      observation?.event(step.value);
    }
  } catch (error) {
    observation?.failed(error);
    throw error;
  }
}
