/**
 * A whole answer's agent loop run to its outcome, with the request's observation told of each
 * event as the loop yields it (one promise per batch of events: the loop's own). A streamed answer's loop
 * is driven by the SSE pump, which tells the observation the same way (src/gateway/shared/sse-pump.ts
 * `observer`): as it takes each event from the loop, not when a writer gets it — the pump holds a
 * stream's first events until one commits the answer, and by then the loop has started its next
 * step (the timeline and the spans would be out of order).
 */
import type { LoopBatches, LoopOutcome } from "../../loop/index.ts";
import type { RequestObservation } from "./request.ts";

export async function drainLoop(loop: LoopBatches, observation: RequestObservation | undefined): Promise<LoopOutcome> {
  try {
    for (;;) {
      const step = await loop.next();
      if (step.done) return step.value;
      if (observation) for (const event of step.value) observation.event(event);
    }
  } catch (error) {
    observation?.failed(error);
    throw error;
  }
}
