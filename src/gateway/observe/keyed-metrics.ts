/**
 * prom-client's Counter and Histogram, updated on the request path without prom-client's work per
 * update: it checks every label name against the metric's and builds a hash string of the sorted
 * names and values each time (about 2 µs per update on a loaded gateway, and a whole answer makes
 * eight). Here a series is found by its label values joined in the metric's label order, one Map
 * lookup. What the registry reads (the exposition text, and the JSON the primary aggregates under
 * `serve --workers`) keeps prom-client's own shape, built from these series at scrape time, so
 * the rest of prom-client (registry, formats, cluster aggregation) works on them unchanged.
 *
 * Label names are checked by the types, not at run time; a label left out is left out of the
 * series, as in prom-client. Both are for metrics with labels, updated by `inc` and `observe`
 * (prom-client's `labels()`, `remove()`, `zero()` and timers are not used by the gateway and are
 * not carried over).
 */
import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from "prom-client";

/** A series' label values; the names are the metric's. */
export type Labels<L extends string> = Partial<Record<L, string>>;

/**
 * Series by their label values, one level per label (a missing label is `undefined`, apart from
 * ""): each lookup is a Map.get of a string whose hash V8 already holds, where a key joined from
 * the values would be a new string to hash on every update.
 */
class SeriesIndex<S> {
  private root = new Map<string | undefined, unknown>();
  /** Every series, in the order they were first updated (prom-client's order too). */
  all: S[] = [];

  constructor(private readonly names: readonly string[]) {}

  /** The series of these label values, made by `create` the first time. */
  get(labels: Record<string, string | undefined>, create: () => S): S {
    let level = this.root;
    const last = this.names.length - 1;
    for (let i = 0; i < last; i++) {
      const value = labels[this.names[i]!];
      let next = level.get(value) as Map<string | undefined, unknown> | undefined;
      if (!next) level.set(value, (next = new Map()));
      level = next;
    }
    const value = labels[this.names[last]!];
    let series = level.get(value) as S | undefined;
    if (!series) {
      level.set(value, (series = create()));
      this.all.push(series);
    }
    return series;
  }

  clear(): void {
    this.root = new Map();
    this.all = [];
  }
}

/** The labels a series shows: only those given (prom-client keeps the object it was given). */
function ownLabels(names: readonly string[], labels: Record<string, string | undefined>): Record<string, string> {
  const own: Record<string, string> = {};
  for (const name of names) {
    const value = labels[name];
    if (value !== undefined) own[name] = value;
  }
  return own;
}

function checkFinite(value: number): void {
  if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
}

interface CounterSeries {
  labels: Record<string, string>;
  value: number;
}

/** What prom-client keeps of a metric's configuration (set on the instance, not in its types). */
interface Described {
  name: string;
  help: string;
  aggregator: string;
}

function described(metric: object): Described {
  return metric as Described;
}

export class KeyedCounter<L extends string> extends Counter<L> {
  // `declare`: prom-client's constructor calls reset() before a subclass's fields would be set.
  declare private series: SeriesIndex<CounterSeries>;
  private readonly names: readonly L[];

  constructor(configuration: CounterConfiguration<L> & { labelNames: readonly L[] }) {
    super(configuration);
    this.names = configuration.labelNames;
    this.series = new SeriesIndex(this.names);
    // prom-client sets `inc` on the instance in its constructor.
    this.inc = ((labels: Labels<L>, value?: number) => this.add(labels, value ?? 1)) as Counter<L>["inc"];
  }

  private add(labels: Labels<L>, value: number): void {
    checkFinite(value);
    if (value < 0) throw new Error("It is not possible to decrease a counter");
    this.series.get(labels, () => ({ labels: ownLabels(this.names, labels), value: 0 })).value += value;
  }

  override reset(): void {
    // Also called by prom-client's constructor, before `names` is set (the constructor makes the index).
    this.series?.clear();
  }

  override async get(): ReturnType<Counter<L>["get"]> {
    const { name, help, aggregator } = described(this);
    const values = this.series.all.map((s) => ({ value: s.value, labels: s.labels }));
    return { name, help, type: "counter", aggregator, values } as unknown as Awaited<ReturnType<Counter<L>["get"]>>;
  }
}

interface HistogramSeries {
  labels: Record<string, string>;
  /** Observations per bucket (not cumulative); one more than the bounds: the +Inf bucket. */
  counts: number[];
  sum: number;
  count: number;
}

/** One value as prom-client's Histogram gives it to the registry (`sharedLabels`: the series'). */
interface HistogramValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
  exemplar: null | undefined;
}

export class KeyedHistogram<L extends string> extends Histogram<L> {
  declare private series: SeriesIndex<HistogramSeries>;
  private readonly names: readonly L[];
  private readonly bounds: readonly number[];

  constructor(configuration: HistogramConfiguration<L> & { labelNames: readonly L[]; buckets: number[] }) {
    super(configuration);
    this.names = configuration.labelNames;
    this.series = new SeriesIndex(this.names);
    // prom-client's own bounds: the buckets as it sorted and checked them.
    this.bounds = (this as unknown as { upperBounds: number[] }).upperBounds;
    // prom-client sets `observe` on the instance in its constructor.
    this.observe = ((labels: Labels<L>, value: number) => this.add(labels, value)) as Histogram<L>["observe"];
  }

  private add(labels: Labels<L>, value: number): void {
    checkFinite(value);
    const series = this.series.get(labels, () => ({ labels: ownLabels(this.names, labels), counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 }));
    let bucket = 0;
    while (bucket < this.bounds.length && value > this.bounds[bucket]!) bucket++;
    series.counts[bucket]!++;
    series.sum += value;
    series.count++;
  }

  override reset(): void {
    this.series?.clear();
  }

  /** What the registry formats: prom-client's values, series by series. */
  async getForPromString(): Promise<{ name: string; help: string; type: "histogram"; aggregator: string; values: HistogramValue[] }> {
    const { name, help, aggregator } = described(this);
    const values: HistogramValue[] = [];
    const bucketName = `${name}_bucket`;
    for (const series of this.series.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le: bound }, sharedLabels: series.labels, value: cumulative, metricName: bucketName, exemplar: null });
      });
      values.push({ labels: { le: "+Inf" }, sharedLabels: series.labels, value: series.count, metricName: bucketName, exemplar: null });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${name}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: series.labels, value: series.count, metricName: `${name}_count`, exemplar: undefined });
    }
    return { name, help, type: "histogram", aggregator, values };
  }

  /** The JSON form (the cluster's aggregation reads it): each value's labels with its series'. */
  override async get(): ReturnType<Histogram<L>["get"]> {
    const data = await this.getForPromString();
    const values = data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: { ...labels, ...sharedLabels } }));
    return { ...data, values } as unknown as Awaited<ReturnType<Histogram<L>["get"]>>;
  }
}
