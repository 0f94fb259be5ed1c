/**
 * The server's own duration aggregation (duration-aggregator.ts) handed to the SDK's metric
 * readers through their `metricProducers` option, the SDK's extension point for metrics
 * aggregated outside it (sdk-metrics `MetricProducer`). A reader collects the SDK's
 * instruments and every producer of its own, and exports them together; this producer's
 * points take the reader's own temporality for histograms, as an SDK histogram's would.
 * Loaded with our own pipeline only (sdk-pipeline.ts).
 */
import { ValueType } from '@opentelemetry/api';
import { emptyResource } from '@opentelemetry/resources';
import {
  AggregationTemporality,
  type CollectionResult,
  DataPointType,
  InstrumentType,
  type MetricProducer,
} from '@opentelemetry/sdk-metrics';
import { type DurationAggregator, hrNow } from './duration-aggregator.ts';
import { DURATION_DESCRIPTION, Metric } from './semconv.ts';

/** What the producer reports its points as: the instrumentation scope of the server's metrics. */
export interface ProducerScope {
  readonly name: string;
  readonly version: string;
}

/** A reader's histogram temporality, asked at each collection (the reader is built after us). */
export type TemporalityOf = (instrument: InstrumentType) => AggregationTemporality;

const DESCRIPTOR = Object.freeze({
  name: Metric.OperationDuration,
  description: DURATION_DESCRIPTION,
  unit: 's',
  valueType: ValueType.DOUBLE,
});

/**
 * A `MetricProducer` for one metric reader: each reader needs its own (its own ledger of what
 * it has reported).
 *
 * @example
 * let reader: MetricReader;
 * const producer = durationProducer(durations, scope, (type) => reader.selectAggregationTemporality(type));
 * reader = new PeriodicExportingMetricReader({ exporter, metricProducers: [producer] });
 */
export function durationProducer(
  durations: DurationAggregator,
  scope: ProducerScope,
  temporalityOf: TemporalityOf,
): MetricProducer {
  const ledger = durations.ledger();
  return {
    async collect(): Promise<CollectionResult> {
      durations.drain();
      const aggregationTemporality = temporalityOf(InstrumentType.HISTOGRAM);
      const points = ledger.report(aggregationTemporality === AggregationTemporality.DELTA, hrNow());
      return {
        // The reader reports the SDK's resource; only the scope metrics of a producer are read.
        resourceMetrics: {
          resource: emptyResource(),
          scopeMetrics:
            points.length === 0
              ? []
              : [
                  {
                    scope: { name: scope.name, version: scope.version },
                    metrics: [
                      {
                        descriptor: DESCRIPTOR,
                        aggregationTemporality,
                        dataPointType: DataPointType.HISTOGRAM,
                        dataPoints: points,
                      },
                    ],
                  },
                ],
        },
        errors: [],
      };
    },
  };
}
