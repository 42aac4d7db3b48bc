/**
 * Stream frames for testing a sink (src/gateway/http/direct-sse.ts, the web stream of
 * src/gateway/shared/sse-pump.ts) without a loop behind them.
 */
import type { SseFrames } from "../../src/gateway/shared/sse-frames.ts";
import { deferred } from "./scripted-model.ts";

/**
 * Frames that give `bursts` one by one, and record what the sink did with them. With `hold`,
 * the burst after the first waits for it; with `pulls`, every pull (`next`) waits for it. The
 * first burst is the head, which `head()` gives too while nothing was given.
 */
export function scriptedFrames(bursts: string[], hold?: Promise<void>, pulls?: Promise<void>) {
  let given = 0;
  const cancelled = deferred<unknown>();
  const record = { cancels: 0, keptAlive: 0, settled: 0, cancelled: cancelled.promise };
  const frames: SseFrames = {
    async next() {
      if (pulls) await pulls;
      if (given > 0 && hold) await hold;
      return bursts[given++] ?? "";
    },
    head() {
      return given === 0 && bursts.length > 1 ? bursts[given++] : undefined;
    },
    get ended() {
      return given >= bursts.length;
    },
    keepAlive() {
      record.keptAlive++;
    },
    settle() {
      record.settled++;
    },
    cancel(reason) {
      record.cancels++;
      cancelled.resolve(reason);
    },
    finished: new Promise(() => undefined),
  };
  return { frames, record };
}
