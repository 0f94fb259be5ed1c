/**
 * `mcp.server.operation.duration` aggregated by the server itself, when the OpenTelemetry
 * pipeline is ours (sdk-pipeline.ts). The SDK's histogram identifies a series by hashing its
 * attribute set on every `record` (a sort and a `JSON.stringify`, then a map lookup: most of
 * what a sampled-out request costs); the server already keeps one frozen attribute set per
 * series (request-series.ts), so each set here keeps its own bucket counts, found without a
 * lookup. At collection the SDK's metric readers take the counts through a `MetricProducer`
 * (duration-producer.ts) and export them as they export the SDK's own histograms: the same
 * name, unit, buckets, attributes, temporality and start times.
 *
 * This file imports nothing of the SDK, so that a server reporting to the application's own
 * MeterProvider (which records through the SDK's histogram, as before) never loads it.
 */
import type { Attributes, HrTime } from '@opentelemetry/api';
import { DURATION_BUCKETS_S } from './semconv.ts';

/**
 * One attribute set of the duration metric as a series holds it. `kept`: the series keeps this
 * object for the process's life, so its recordings may live on it (`window`); a set that is
 * built anew per request (a method nobody registered, past the series caps) is aggregated by
 * its content instead.
 */
export interface DurationKey {
  readonly attributes: Attributes;
  readonly kept: boolean;
  window: DurationWindow | undefined;
}

/** A key for an attribute set. */
export function durationKey(attributes: Attributes, kept: boolean): DurationKey {
  return { attributes, kept, window: undefined };
}

/** The time now, as the SDK stamps data points (milliseconds since the epoch, in [s, ns]). */
export function hrNow(): HrTime {
  const ms = performance.timeOrigin + performance.now();
  const seconds = Math.trunc(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** What one attribute set recorded since the last collection. */
export class DurationWindow {
  readonly attributes: Attributes;
  count = 0;
  sum = 0;
  min = Number.POSITIVE_INFINITY;
  max = Number.NEGATIVE_INFINITY;
  /** One count per bucket: `DURATION_BUCKETS_S.length + 1`, the last one unbounded. */
  readonly counts: number[];
  /** When the first recording of this window was made (the SDK's accumulation start). */
  start: HrTime = [0, 0];

  constructor(attributes: Attributes) {
    this.attributes = attributes;
    this.counts = new Array<number>(DURATION_BUCKETS_S.length + 1).fill(0);
  }

  record(seconds: number): void {
    if (this.count === 0) this.start = hrNow();
    this.count++;
    this.sum += seconds;
    if (seconds < this.min) this.min = seconds;
    if (seconds > this.max) this.max = seconds;
    // The first bucket whose upper bound is at or above the value (upper bounds inclusive, as
    // the SDK's explicit-bucket histogram); most requests stop at the first.
    let bucket = 0;
    while (bucket < DURATION_BUCKETS_S.length && (DURATION_BUCKETS_S[bucket] as number) < seconds) bucket++;
    this.counts[bucket] = (this.counts[bucket] as number) + 1;
  }

  reset(): void {
    this.count = 0;
    this.sum = 0;
    this.min = Number.POSITIVE_INFINITY;
    this.max = Number.NEGATIVE_INFINITY;
    this.counts.fill(0);
  }
}

/** A data point as the SDK's readers take it (`DataPoint<Histogram>` of sdk-metrics). */
export interface HistogramPoint {
  readonly attributes: Attributes;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly value: {
    readonly buckets: { readonly boundaries: number[]; readonly counts: number[] };
    readonly count: number;
    readonly sum: number;
    readonly min: number;
    readonly max: number;
  };
}

interface Totals {
  readonly attributes: Attributes;
  start: HrTime;
  count: number;
  sum: number;
  min: number;
  max: number;
  readonly counts: number[];
}

/**
 * What one metric reader has been handed: cumulative totals, or the totals since it last
 * reported (delta), per attribute set. Each reader has its own, as the SDK keeps a history per
 * collector, so two readers with different temporalities (OTLP and Prometheus) both see every
 * recording.
 */
export class DurationLedger {
  readonly #totals = new Map<DurationWindow, Totals>();
  /** Totals absorbed since the last report (delta reports only these). */
  readonly #fresh = new Set<Totals>();
  /** Totals in the last delta report: their next start is that report's time (the SDK's calibration). */
  #lastReported = new Set<Totals>();
  #lastReport: HrTime | undefined;

  absorb(window: DurationWindow): void {
    let totals = this.#totals.get(window);
    if (totals === undefined) {
      totals = {
        attributes: window.attributes,
        start: window.start,
        count: 0,
        sum: 0,
        min: Number.POSITIVE_INFINITY,
        max: Number.NEGATIVE_INFINITY,
        counts: new Array<number>(window.counts.length).fill(0),
      };
      this.#totals.set(window, totals);
    } else if (!this.#fresh.has(totals) && totals.count === 0) {
      totals.start = window.start;
    }
    totals.count += window.count;
    totals.sum += window.sum;
    if (window.min < totals.min) totals.min = window.min;
    if (window.max > totals.max) totals.max = window.max;
    for (let i = 0; i < window.counts.length; i++)
      totals.counts[i] = (totals.counts[i] as number) + (window.counts[i] as number);
    this.#fresh.add(totals);
  }

  /**
   * The data points to report at `now`: every attribute set seen so far (cumulative), or those
   * recorded since the last report, which then start again from zero (delta).
   */
  report(delta: boolean, now: HrTime): HistogramPoint[] {
    const points: HistogramPoint[] = [];
    if (!delta) {
      for (const totals of this.#totals.values()) points.push(pointOf(totals, totals.start, now));
      this.#fresh.clear();
      return points;
    }
    for (const totals of this.#fresh) {
      const start =
        this.#lastReport !== undefined && this.#lastReported.has(totals) ? this.#lastReport : totals.start;
      points.push(pointOf(totals, start, now));
    }
    for (const totals of this.#fresh) {
      totals.count = 0;
      totals.sum = 0;
      totals.min = Number.POSITIVE_INFINITY;
      totals.max = Number.NEGATIVE_INFINITY;
      totals.counts.fill(0);
    }
    this.#lastReported = new Set(this.#fresh);
    this.#fresh.clear();
    this.#lastReport = now;
    return points;
  }
}

function pointOf(totals: Totals, startTime: HrTime, endTime: HrTime): HistogramPoint {
  return {
    attributes: totals.attributes,
    startTime,
    endTime,
    value: {
      buckets: { boundaries: [...DURATION_BUCKETS_S], counts: [...totals.counts] },
      count: totals.count,
      sum: totals.sum,
      min: totals.min,
      max: totals.max,
    },
  };
}

/**
 * Attribute sets aggregated by content at most (sets no series keeps); past it, recordings go
 * to one set marked `otel.metric.overflow`, as the SDK's cardinality limit does.
 */
const MAX_UNKEPT_SETS = 2000;
const OVERFLOW: Attributes = Object.freeze({ 'otel.metric.overflow': true });

/** The attribute set's content as a key (its keys are already sorted: request-series.ts). */
function contentKey(attributes: Attributes): string {
  return JSON.stringify(attributes);
}

/**
 * The duration metric's recordings, held per attribute set until a metric reader collects.
 *
 * @example
 * const durations = new DurationAggregator();
 * durations.record(series.okDuration, 0.004);
 * const ledger = durations.ledger(); // one per reader (duration-producer.ts)
 * durations.drain();
 * ledger.report(false, hrNow());
 */
export class DurationAggregator {
  readonly #windows: DurationWindow[] = [];
  readonly #byContent = new Map<string, DurationWindow>();
  readonly #ledgers: DurationLedger[] = [];
  #overflow: DurationWindow | undefined;

  record(key: DurationKey, seconds: number): void {
    let window = key.window;
    if (window === undefined) {
      if (key.kept) {
        window = this.#open(key.attributes);
        key.window = window;
      } else window = this.#byContentOf(key.attributes);
    }
    window.record(seconds);
  }

  /** A new reader's ledger: it sees what is recorded from now on. */
  ledger(): DurationLedger {
    const ledger = new DurationLedger();
    this.#ledgers.push(ledger);
    return ledger;
  }

  /** Hands what was recorded since the last drain to every reader's ledger. */
  drain(): void {
    for (const window of this.#windows) {
      if (window.count === 0) continue;
      for (const ledger of this.#ledgers) ledger.absorb(window);
      window.reset();
    }
  }

  #open(attributes: Attributes): DurationWindow {
    const window = new DurationWindow(attributes);
    this.#windows.push(window);
    return window;
  }

  #byContentOf(attributes: Attributes): DurationWindow {
    const key = contentKey(attributes);
    let window = this.#byContent.get(key);
    if (window !== undefined) return window;
    if (this.#byContent.size >= MAX_UNKEPT_SETS) {
      this.#overflow ??= this.#open(OVERFLOW);
      return this.#overflow;
    }
    window = this.#open(attributes);
    this.#byContent.set(key, window);
    return window;
  }
}
