/**
 * The keyed Counter and Histogram against prom-client's own, fed the same updates: the registry's
 * exposition text and JSON (what the cluster's primary aggregates) must be the same, byte for byte.
 */
import { AggregatorRegistry, Counter, Histogram, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { KeyedCounter, KeyedHistogram } from "../../src/gateway/observe/keyed-metrics.ts";

const NAMES = ["door", "model", "error_type"] as const;
type Name = (typeof NAMES)[number];
const BUCKETS = [0.01, 0.1, 1, 10];

/** Updates that cover the edges: a left-out label, quotes and newlines, a value on a bound, past the last. */
const UPDATES: [Partial<Record<Name, string>>, number][] = [
  [{ door: "chat", model: "m" }, 0.01],
  [{ door: "chat", model: "m" }, 0.5],
  [{ door: "chat", model: "m" }, 99],
  [{ door: "chat", model: 'quoted "m"\nline' }, 0],
  [{ door: "messages", model: "m", error_type: "timeout" }, 1],
  [{ door: "messages", model: "m", error_type: "" }, 2],
  [{ model: "m", door: "chat" }, 10],
];

function pair() {
  const [ours, theirs] = [new Registry(), new Registry()];
  const config = (registry: Registry) => ({ help: "help text", labelNames: NAMES, registers: [registry] });
  return {
    ours,
    theirs,
    keyed: {
      histogram: new KeyedHistogram<Name>({ name: "h_seconds", buckets: BUCKETS, ...config(ours) }),
      counter: new KeyedCounter<Name>({ name: "c_total", ...config(ours) }),
    },
    plain: {
      histogram: new Histogram<Name>({ name: "h_seconds", buckets: BUCKETS, ...config(theirs) }),
      counter: new Counter<Name>({ name: "c_total", ...config(theirs) }),
    },
  };
}

function feed(metrics: { histogram: Histogram<Name>; counter: Counter<Name> }): void {
  for (const [labels, value] of UPDATES) {
    metrics.histogram.observe(labels, value);
    metrics.counter.inc(labels);
    metrics.counter.inc(labels, value);
  }
}

describe("keyed metrics", () => {
  it("expose the same text and JSON as prom-client's own", async () => {
    const { ours, theirs, keyed, plain } = pair();
    feed(keyed);
    feed(plain);
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('h_seconds_bucket{le="+Inf",door="chat",model="m"} 4');
    expect(text).toContain('c_total{door="chat",model="quoted \\"m\\"\\nline"} 1');
    expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });

  it("aggregate across workers as prom-client's own do", async () => {
    const { ours, theirs, keyed, plain } = pair();
    feed(keyed);
    feed(plain);
    const [a, b] = [await ours.getMetricsAsJSON(), await theirs.getMetricsAsJSON()];
    const summed = await AggregatorRegistry.aggregate([a, a]).metrics();
    expect(summed).toBe(await AggregatorRegistry.aggregate([b, b]).metrics());
    expect(summed).toContain('h_seconds_count{door="chat",model="m"} 8');
  });

  it("start again empty after reset", async () => {
    const { ours, keyed } = pair();
    feed(keyed);
    ours.resetMetrics();
    keyed.counter.inc({ door: "chat" });
    const text = await ours.metrics();
    expect(text).toContain('c_total{door="chat"} 1');
    expect(text).not.toContain("h_seconds_bucket");
    expect(text).not.toContain('model="m"');
  });

  it("refuse what prom-client refuses", () => {
    const { keyed } = pair();
    expect(() => keyed.histogram.observe({ door: "chat" }, Number.NaN)).toThrow(/not a valid number/);
    expect(() => keyed.counter.inc({ door: "chat" }, -1)).toThrow(/decrease/);
  });
});
