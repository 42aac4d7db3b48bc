/**
 * The agent loop of a request, as its consumer (the whole-answer handler or the SSE pump) drives
 * it, with two things added at the one place every event passes:
 * - each step runs in the async context the loop was started in (AsyncResource.bind): a stream's
 *   later steps are pulled by the HTTP server's body reader, outside the request's context, so
 *   without this its log lines would lose their request id and its spans their parent;
 * - the request's observation sees each event when the loop yields it — not when a writer gets
 *   it (the pump holds a stream's first events until one commits the answer, and the loop has
 *   started the next step by then: the timeline and the spans would be out of order).
 * A plain object, not another async generator: no extra promise hop per token.
 */
import { AsyncResource } from "node:async_hooks";
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { RequestObservation } from "./request.ts";

type Loop = AsyncGenerator<LoopEvent, LoopOutcome>;
type Step = IteratorResult<LoopEvent, LoopOutcome>;

export function observedLoop(loop: Loop, observation: RequestObservation | undefined): Loop {
  const inContext = AsyncResource.bind(<T>(run: () => Promise<T>): Promise<T> => run());
  const seen = (step: Step): Step => {
    if (!step.done) observation?.event(step.value);
    return step;
  };
  const failed = (error: unknown): never => {
    observation?.failed(error);
    throw error;
  };
  const observed: Loop = {
    next: (...args) => inContext(() => loop.next(...args)).then(seen, failed),
    return: (value) => inContext(() => loop.return(value)),
    throw: (error) => inContext(() => loop.throw(error)).then(seen, failed),
    [Symbol.asyncIterator]: () => observed,
  };
  return observed;
}
