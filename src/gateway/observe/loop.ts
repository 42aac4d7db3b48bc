/**
 * A whole answer's agent loop run to its outcome, with the request's observation told of each
 * event as the loop yields it (one promise per event: the loop's own). A streamed answer's loop
 * is driven by the SSE pump, which tells the observation the same way (src/gateway/shared/sse-pump.ts
 * `observer`): as it takes each event from the loop, not when a writer gets it — the pump holds a
 * stream's first events until one commits the answer, and by then the loop has started its next
 * step (the timeline and the spans would be out of order).
 */
import type { LoopEvent, LoopOutcome } from "../../loop/index.ts";
import type { RequestObservation } from "./request.ts";

type Loop = AsyncGenerator<LoopEvent, LoopOutcome>;

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
