/**
 * The request-duration histogram (`mcp.server.operation.duration`), aggregated here and
 * handed to the OpenTelemetry metric reader as a `MetricProducer`.
 *
 * Why not the SDK's histogram instrument: its `record` turns the attributes into a key by
 * sorting their names and `JSON.stringify`-ing them, on every call, then walks its own
 * accumulation maps. That was a measurable share of a traced request. Here the caller passes
 * the few attribute values it has, one string key finds the data point, and the attribute
 * object is built once per series. What is exported is what the SDK's explicit-bucket
 * histogram exports: the same buckets, sum, count, min and max, cumulative (or delta, when
 * the exporter asks for it, e.g. OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=delta),
 * and the SDK's cardinality limit of 2,000 series with an overflow series past it.
 */
import { type Attributes, type HrTime, ValueType } from '@opentelemetry/api';
import { millisToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  DataPointType,
  type HistogramMetricData,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { Attr } from './semconv.ts';

/** The SDK's default cardinality limit per metric; past it, points go to one overflow series. */
const MAX_SERIES = 2000;
const OVERFLOW_KEY = 'overflow';

/** The attribute values of one duration; `undefined` leaves the attribute out. */
export interface DurationAttributes {
  readonly method: string;
  readonly transport: string;
  readonly tool: string | undefined;
  readonly protocolVersion: string | undefined;
  readonly errorType: string | undefined;
}

/** One attribute set's data point; opaque outside this file. */
export interface Series {
  readonly attributes: Attributes;
  readonly counts: number[];
  sum: number;
  count: number;
  min: number;
  max: number;
}

export interface DurationHistogramOptions {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  /** Finite upper bounds, ascending (inclusive, as the SDK's explicit buckets). */
  readonly boundaries: readonly number[];
  readonly scope: { readonly name: string; readonly version?: string };
  /** Reported with the points (the reader puts its own provider's resource in the export). */
  readonly resource: Resource;
  /** Asked at each collection; the reader's exporter decides. */
  readonly temporality: () => AggregationTemporality;
  /** For tests. */
  readonly now?: () => number;
}

/** One value of a cache key: length-prefixed, so that no two value lists share a key. */
export function keyPart(value: string | undefined): string {
  return value === undefined ? '-' : `${value.length}:${value}`;
}

function attributesOf(a: DurationAttributes): Attributes {
  const attributes: Attributes = { [Attr.McpMethodName]: a.method, [Attr.NetworkTransport]: a.transport };
  if (a.tool !== undefined) attributes[Attr.GenAiToolName] = a.tool;
  if (a.protocolVersion !== undefined) attributes[Attr.McpProtocolVersion] = a.protocolVersion;
  if (a.errorType !== undefined) attributes[Attr.ErrorType] = a.errorType;
  return attributes;
}

export class DurationHistogram implements MetricProducer {
  readonly #options: DurationHistogramOptions;
  readonly #boundaries: readonly number[];
  readonly #now: () => number;
  readonly #series = new Map<string, Series>();
  #start: HrTime;

  constructor(options: DurationHistogramOptions) {
    for (let i = 1; i < options.boundaries.length; i++) {
      if (!((options.boundaries[i] as number) > (options.boundaries[i - 1] as number)))
        throw new RangeError('histogram boundaries must be ascending');
    }
    this.#options = options;
    this.#boundaries = options.boundaries;
    this.#now = options.now ?? Date.now;
    this.#start = millisToHrTime(this.#now());
  }

  /** Records one duration, in the histogram's unit. */
  record(value: number, a: DurationAttributes): void {
    if (!(value >= 0) || value === Number.POSITIVE_INFINITY) return;
    this.recordIn(this.series(a), value);
  }

  /**
   * The data point of an attribute set, to record into many times (`recordIn`) without
   * finding it again: a series lives as long as the histogram.
   */
  series(a: DurationAttributes): Series {
    const key = `${keyPart(a.method)}${keyPart(a.transport)}${keyPart(a.tool)}${keyPart(a.protocolVersion)}${keyPart(a.errorType)}`;
    return this.#series.get(key) ?? this.#open(key, a);
  }

  recordIn(series: Series, value: number): void {
    if (!(value >= 0) || value === Number.POSITIVE_INFINITY) return;
    const boundaries = this.#boundaries;
    let bucket = 0;
    while (bucket < boundaries.length && value > (boundaries[bucket] as number)) bucket++;
    (series.counts[bucket] as number)++;
    series.sum += value;
    series.count++;
    if (value < series.min) series.min = value;
    if (value > series.max) series.max = value;
  }

  #open(key: string, a: DurationAttributes): Series {
    let attributes: Attributes;
    if (this.#series.size >= MAX_SERIES - 1) {
      key = OVERFLOW_KEY;
      const overflow = this.#series.get(key);
      if (overflow !== undefined) return overflow;
      attributes = { 'otel.metric.overflow': true };
    } else {
      attributes = attributesOf(a);
    }
    const series: Series = {
      attributes,
      counts: new Array<number>(this.#boundaries.length + 1).fill(0),
      sum: 0,
      count: 0,
      min: Number.POSITIVE_INFINITY,
      max: Number.NEGATIVE_INFINITY,
    };
    this.#series.set(key, series);
    return series;
  }

  async collect(): Promise<CollectionResult> {
    const endTime = millisToHrTime(this.#now());
    const startTime = this.#start;
    const temporality = this.#options.temporality();
    const delta = temporality === AggregationTemporality.DELTA;
    // A series nothing was recorded in (since the start; for delta, since the last
    // collection) is left out, as the SDK leaves out attribute sets it never saw. Delta
    // series start over in place, since callers may hold them (see `series`).
    const all = [...this.#series.values()].filter((s) => s.count > 0);
    const points = all.map((s) => ({
      attributes: s.attributes,
      startTime,
      endTime,
      value: {
        buckets: { boundaries: [...this.#boundaries], counts: [...s.counts] },
        sum: s.sum,
        count: s.count,
        min: s.min,
        max: s.max,
      },
    }));
    if (delta) {
      for (const s of all) {
        s.counts.fill(0);
        s.sum = 0;
        s.count = 0;
        s.min = Number.POSITIVE_INFINITY;
        s.max = Number.NEGATIVE_INFINITY;
      }
      this.#start = endTime;
    }
    const metric: HistogramMetricData = {
      descriptor: {
        name: this.#options.name,
        description: this.#options.description,
        unit: this.#options.unit,
        valueType: ValueType.DOUBLE,
      },
      aggregationTemporality: temporality,
      dataPointType: DataPointType.HISTOGRAM,
      dataPoints: points,
    };
    return {
      resourceMetrics: {
        resource: this.#options.resource,
        scopeMetrics: all.length === 0 ? [] : [{ scope: this.#options.scope, metrics: [metric] }],
      },
      errors: [],
    };
  }
}
