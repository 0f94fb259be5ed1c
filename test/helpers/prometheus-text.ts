/**
 * Prometheus' text exposition format, parsed by `parse-prometheus-text-format` (a port of the
 * Prometheus project's own parser logic, output shaped like its `prom2json`): one entry per
 * metric family, its samples' values as strings. A line that is not the format throws.
 * Histograms come back with their buckets by `le`, merged over the family: read one series at
 * a time. The package ships no types; this is the shape it returns.
 */
import { createRequire } from 'node:module';

export interface PrometheusFamily {
  readonly name: string;
  readonly help: string;
  /** `COUNTER`, `GAUGE`, `HISTOGRAM`, `SUMMARY` or `UNTYPED`. */
  readonly type: string;
  readonly metrics: readonly {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }[];
}

const parse = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => PrometheusFamily[];

/**
 * @example
 * const families = parsePrometheusText(await (await fetch(url)).text());
 */
export function parsePrometheusText(text: string): PrometheusFamily[] {
  return parse(text);
}
