/**
 * /metrics under `serve --workers N`: the primary hands each connection to a worker, so a scrape
 * answered by one worker alone would show a random share of the traffic. A worker asked for
 * /metrics asks the primary instead, which gathers every worker's metrics (prom-client's
 * AggregatorRegistry, over the cluster's IPC channel) and answers with their aggregate: counters
 * and histograms summed, each gauge as its `aggregator` says. Without workers nothing here runs.
 */
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

const ASK = "mcp-gateway:metrics";
const ANSWER = "mcp-gateway:metrics-answer";
/** prom-client gives up on a worker that does not answer after 5 s: a little more than that. */
const ANSWER_TIMEOUT_MS = 6_000;

interface Ask {
  type: typeof ASK;
  id: number;
}

interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

const isAsk = (message: unknown): message is Ask => (message as { type?: unknown } | null)?.type === ASK;
const isAnswer = (message: unknown): message is Answer => (message as { type?: unknown } | null)?.type === ANSWER;

/**
 * In a worker of `serve --workers N`: offers `registries` to the primary's aggregation and returns
 * a scrape of every worker's metrics (through the primary). Undefined in any other process.
 */
export function clusterScrape(registries: Registry[]): (() => Promise<string>) | undefined {
  const send = process.send?.bind(process);
  if (!cluster.isWorker || !send) return undefined;
  // Its constructor makes this worker answer the primary's requests for its metrics.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries(registries);
  let next = 0;
  const waiting = new Map<number, { resolve(text: string): void; reject(error: Error): void }>();
  process.on("message", (message: unknown) => {
    if (!isAnswer(message)) return;
    const pending = waiting.get(message.id);
    waiting.delete(message.id);
    if (message.text !== undefined) pending?.resolve(message.text);
    else pending?.reject(new Error(`the workers' metrics could not be gathered: ${message.error ?? "no answer"}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error("the workers' metrics could not be gathered: the primary did not answer"));
      }, ANSWER_TIMEOUT_MS);
      timer.unref();
      const done = <T>(settle: (value: T) => void) => (value: T) => {
        clearTimeout(timer);
        settle(value);
      };
      waiting.set(id, { resolve: done(resolve), reject: done(reject) });
      send({ type: ASK, id } satisfies Ask);
    });
}

/** In the primary of `serve --workers N`: answers the workers' requests for everyone's metrics. */
export function metricsForWorkers(): (worker: Worker, message: unknown) => void {
  const aggregator = new AggregatorRegistry();
  return (worker, message) => {
    if (!isAsk(message)) return;
    const reply = (answer: Omit<Answer, "type" | "id">) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer } satisfies Answer);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  };
}
