/**
 * The standard OpenTelemetry environment variables this server honours (OpenTelemetry
 * specification, "Environment Variable Specification" and "OTLP Exporter Configuration"),
 * parsed once with zod from the environment `serve()` is given, and merged with their
 * `MCP_OTEL_*` aliases into one resolved `TracingConfig`.
 *
 * Parsed here, not by the SDK from `process.env`: a bad value stops start-up with a message
 * naming the variable (the SDK warns and takes a default), `serve({ env })` means what it
 * says, and the SDK components are built with these values passed explicitly.
 *
 * Precedence: an `MCP_OTEL_*` setting, when set, wins over the standard variable it stands
 * for; among the standard ones the specification's rule holds (a signal-specific variable,
 * `OTEL_EXPORTER_OTLP_TRACES_*`, wins over the generic `OTEL_EXPORTER_OTLP_*`).
 */
import { z } from 'zod';
import { describeIssues } from '../base/env.ts';
import { InternalCode, ToolkitError } from '../base/errors.ts';

export type OtlpProtocol = 'http/protobuf' | 'http/json';
export type SamplerName = (typeof SAMPLERS)[number];
export type PropagatorName = 'tracecontext' | 'baggage' | 'b3' | 'b3multi';
/** The per-request metrics' attributes: the conventions' required ones, or the recommended too. */
export type MetricAttributeSet = 'required' | 'recommended';

/** Where and how one signal is exported. */
export interface OtlpTarget {
  /** Full URL, e.g. `http://127.0.0.1:4318/v1/traces`. */
  readonly url: string;
  readonly protocol: OtlpProtocol;
  readonly headers: Readonly<Record<string, string>>;
  readonly compression: 'gzip' | 'none';
  readonly timeoutMs: number;
}

/** The parsed `MCP_*` settings tracing reads (src/config/settings.ts gives them). */
export interface TracingSettings {
  readonly MCP_OTEL_ENDPOINT?: string | undefined;
  readonly MCP_OTEL_SERVICE_NAME?: string | undefined;
  readonly MCP_OTEL_SAMPLE_RATIO?: number | undefined;
  readonly MCP_OTEL_METRIC_ATTRIBUTES?: MetricAttributeSet | undefined;
  readonly MCP_SERVER_NAME: string;
}

/** Everything tracing and metrics need, resolved from MCP_OTEL_* and OTEL_* variables. */
export interface TracingConfig {
  /** `OTEL_SDK_DISABLED=true`: no SDK of ours is started (an application's provider is still used). */
  readonly sdkDisabled: boolean;
  /** Spans are exported here; `undefined` means no exporter of ours. */
  readonly traces: OtlpTarget | undefined;
  readonly metrics: OtlpTarget | undefined;
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** `OTEL_RESOURCE_ATTRIBUTES`, decoded. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: SamplerName;
  /** The ratio of the `traceidratio` samplers, 0 to 1 (the specification's default: 1). */
  readonly samplerRatio: number;
  /** `OTEL_PROPAGATORS`; empty for `none`. */
  readonly propagators: readonly PropagatorName[];
  /** `OTEL_BSP_SCHEDULE_DELAY`, ms. */
  readonly spanDelayMs: number;
  /** `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`. */
  readonly maxExportBatchSize: number;
  /** `OTEL_BSP_MAX_QUEUE_SIZE`. */
  readonly maxQueueSize: number;
  /** `OTEL_METRIC_EXPORT_INTERVAL`, ms. */
  readonly metricIntervalMs: number;
  /** `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE`. */
  readonly temporality: 'cumulative' | 'delta' | 'lowmemory';
  /** `MCP_OTEL_METRIC_ATTRIBUTES`. */
  readonly metricAttributes: MetricAttributeSet;
  /**
   * The instrumentations our own SDK registers, after `OTEL_NODE_ENABLED_INSTRUMENTATIONS`
   * and `OTEL_NODE_DISABLED_INSTRUMENTATIONS` (default: all of `BUILT_IN_INSTRUMENTATIONS`).
   */
  readonly instrumentations: readonly InstrumentationName[];
}

/** The instrumentations the server's own SDK can register, by their Node SDK names. */
export const BUILT_IN_INSTRUMENTATIONS = ['http', 'undici'] as const;
export type InstrumentationName = (typeof BUILT_IN_INSTRUMENTATIONS)[number];

const blankIsUnset = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

const url = z
  .string()
  .optional()
  .transform(blankIsUnset)
  .pipe(
    z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as http://127.0.0.1:4318' })
      .optional(),
  );

const protocol = z
  .string()
  .optional()
  .transform(blankIsUnset)
  .pipe(
    z
      .enum(['http/protobuf', 'http/json'], {
        error:
          'expected http/protobuf or http/json (this server exports OTLP over HTTP; grpc is not supported)',
      })
      .optional(),
  );

const compression = z
  .string()
  .optional()
  .transform(blankIsUnset)
  .pipe(z.enum(['gzip', 'none'], { error: 'expected gzip or none' }).optional());

const millis = (max: number) =>
  z
    .string()
    .optional()
    .transform(blankIsUnset)
    .pipe(
      z
        .string()
        .regex(/^\d+$/, { error: `expected a whole number of milliseconds up to ${max}` })
        .transform(Number)
        .pipe(
          z
            .number()
            .int()
            .max(max, { error: `expected a whole number of milliseconds up to ${max}` }),
        )
        .optional(),
    );

const positiveInt = (max: number) =>
  z
    .string()
    .optional()
    .transform(blankIsUnset)
    .pipe(
      z
        .string()
        .regex(/^[1-9]\d*$/, { error: `expected a whole number from 1 to ${max}` })
        .transform(Number)
        .pipe(z.number().max(max, { error: `expected a whole number from 1 to ${max}` }))
        .optional(),
    );

/** W3C Baggage-style `key=value,key2=value2` lists, values percent-encoded (OTLP headers, resource attributes). */
function keyValueList(what: string) {
  return z
    .string()
    .optional()
    .transform((v, ctx): Record<string, string> => {
      const out: Record<string, string> = {};
      if (v === undefined || v.trim() === '') return out;
      for (const item of v.split(',')) {
        if (item.trim() === '') continue;
        const eq = item.indexOf('=');
        const key = eq === -1 ? '' : item.slice(0, eq).trim();
        if (key === '') {
          ctx.addIssue({
            code: 'custom',
            message: `expected ${what} as key=value pairs separated by commas`,
          });
          return out;
        }
        try {
          out[key] = decodeURIComponent(item.slice(eq + 1).trim());
        } catch {
          ctx.addIssue({ code: 'custom', message: `the value of "${key}" is not valid percent-encoding` });
          return out;
        }
      }
      return out;
    });
}

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const PROPAGATORS = ['tracecontext', 'baggage', 'b3', 'b3multi', 'none'] as const;

const RATIO_ERROR = 'expected a number from 0 to 1, such as 0.1';
const ratio = z
  .string()
  .optional()
  .transform(blankIsUnset)
  .pipe(
    z
      .string()
      .regex(/^(?:0(?:\.\d+)?|1(?:\.0+)?|\.\d+)$/, { error: RATIO_ERROR })
      .transform(Number)
      .optional(),
  );

/**
 * `OTEL_NODE_ENABLED_INSTRUMENTATIONS` / `OTEL_NODE_DISABLED_INSTRUMENTATIONS`: comma-separated
 * names without the `@opentelemetry/instrumentation-` prefix, as the Node SDK reads them.
 * Names of instrumentations this server does not bundle (`pg`, `redis`, ...) are accepted and
 * select nothing here: they are a preloaded SDK's business.
 */
const instrumentationList = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined;
    const names = v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    for (const name of names) {
      if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) {
        ctx.addIssue({
          code: 'custom',
          message: `"${name}" is not an instrumentation name; expected names such as http,undici (without @opentelemetry/instrumentation-)`,
        });
      }
    }
    return names;
  });

/** `OTEL_TRACES_EXPORTER` / `OTEL_METRICS_EXPORTER`: OTLP (the default) or none; one value. */
const exporterChoice = z
  .string()
  .optional()
  .transform((v) => blankIsUnset(v)?.toLowerCase())
  .pipe(
    z
      .enum(['otlp', 'none'], {
        error: 'expected otlp or none (this server exports OTLP over HTTP, or nothing for the signal)',
      })
      .optional(),
  );

/** The standard variables, as the specification names them. */
const otelEnvSchema = z.object({
  OTEL_TRACES_EXPORTER: exporterChoice,
  OTEL_METRICS_EXPORTER: exporterChoice,
  OTEL_SDK_DISABLED: z
    .string()
    .optional()
    .transform((v) => v?.trim().toLowerCase() === 'true'),
  OTEL_SERVICE_NAME: z.string().optional().transform(blankIsUnset),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList('resource attributes'),
  OTEL_EXPORTER_OTLP_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: url,
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList('headers'),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList('headers'),
  OTEL_EXPORTER_OTLP_METRICS_HEADERS: keyValueList('headers'),
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: protocol,
  OTEL_EXPORTER_OTLP_COMPRESSION: compression,
  OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: compression,
  OTEL_EXPORTER_OTLP_METRICS_COMPRESSION: compression,
  OTEL_EXPORTER_OTLP_TIMEOUT: millis(600_000),
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: millis(600_000),
  OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: millis(600_000),
  OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: z
    .string()
    .optional()
    .transform((v) => blankIsUnset(v)?.toLowerCase())
    .pipe(
      z
        .enum(['cumulative', 'delta', 'lowmemory'], { error: 'expected cumulative, delta or lowmemory' })
        .optional(),
    ),
  OTEL_TRACES_SAMPLER: z
    .string()
    .optional()
    .transform((v) => blankIsUnset(v)?.toLowerCase())
    .pipe(z.enum(SAMPLERS, { error: `expected one of ${SAMPLERS.join(', ')}` }).optional()),
  OTEL_TRACES_SAMPLER_ARG: ratio,
  OTEL_PROPAGATORS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return undefined;
      const names = v
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== '');
      for (const name of names) {
        if (!(PROPAGATORS as readonly string[]).includes(name)) {
          ctx.addIssue({
            code: 'custom',
            message: `unknown propagator "${name}"; expected ${PROPAGATORS.join(', ')}`,
          });
        }
      }
      return [...new Set(names)] as (typeof PROPAGATORS)[number][];
    }),
  OTEL_BSP_SCHEDULE_DELAY: millis(3_600_000),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: positiveInt(1_000_000),
  OTEL_BSP_MAX_QUEUE_SIZE: positiveInt(10_000_000),
  OTEL_METRIC_EXPORT_INTERVAL: positiveInt(86_400_000),
  OTEL_NODE_ENABLED_INSTRUMENTATIONS: instrumentationList,
  OTEL_NODE_DISABLED_INSTRUMENTATIONS: instrumentationList,
});

/** The names of the standard variables read (for docs and `doctor`). */
export const OTEL_ENV_NAMES = Object.keys(otelEnvSchema.shape) as (keyof typeof otelEnvSchema.shape)[];

type OtelEnv = z.output<typeof otelEnvSchema>;

/** `base` + `/v1/<signal>` (OTLP/HTTP: the generic endpoint is a base URL, a signal endpoint is used as is). */
function signalUrl(base: string, signal: 'traces' | 'metrics'): string {
  return `${base.replace(/\/+$/, '')}/v1/${signal}`;
}

function target(
  env: OtelEnv,
  signal: 'TRACES' | 'METRICS',
  alias: string | undefined,
): OtlpTarget | undefined {
  const lower = signal === 'TRACES' ? 'traces' : 'metrics';
  const signalEndpoint = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`];
  const url =
    alias !== undefined
      ? signalUrl(alias, lower)
      : (signalEndpoint ??
        (env.OTEL_EXPORTER_OTLP_ENDPOINT === undefined
          ? undefined
          : signalUrl(env.OTEL_EXPORTER_OTLP_ENDPOINT, lower)));
  if (url === undefined) return undefined;
  return {
    url,
    protocol:
      env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
    headers: { ...env.OTEL_EXPORTER_OTLP_HEADERS, ...env[`OTEL_EXPORTER_OTLP_${signal}_HEADERS`] },
    compression:
      env[`OTEL_EXPORTER_OTLP_${signal}_COMPRESSION`] ?? env.OTEL_EXPORTER_OTLP_COMPRESSION ?? 'none',
    timeoutMs: env[`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`] ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
  };
}

/**
 * Resolves tracing from the parsed MCP_* settings and the standard OTEL_* variables of
 * `env`; throws a ToolkitError (InvalidSetting) naming each bad variable.
 *
 * @example
 * const tracing = parseTracingConfig(process.env, parseSettings(process.env), '0.1.0');
 * tracing.traces?.url; // 'http://127.0.0.1:4318/v1/traces'
 */
export function parseTracingConfig(
  env: Readonly<Record<string, string | undefined>>,
  settings: TracingSettings,
  serviceVersion: string,
): TracingConfig {
  const picked: Record<string, string | undefined> = {};
  for (const name of OTEL_ENV_NAMES) picked[name] = env[name];
  const result = otelEnvSchema.safeParse(picked);
  if (!result.success) throw new ToolkitError(InternalCode.InvalidSetting, describeIssues(result.error, env));
  const o = result.data;
  const ratioAlias = settings.MCP_OTEL_SAMPLE_RATIO;
  const sampler: SamplerName =
    ratioAlias !== undefined
      ? 'parentbased_traceidratio'
      : (o.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on');
  return Object.freeze({
    sdkDisabled: o.OTEL_SDK_DISABLED,
    // `none` turns one signal off and keeps the other (the specification's values).
    traces: o.OTEL_TRACES_EXPORTER === 'none' ? undefined : target(o, 'TRACES', settings.MCP_OTEL_ENDPOINT),
    metrics:
      o.OTEL_METRICS_EXPORTER === 'none' ? undefined : target(o, 'METRICS', settings.MCP_OTEL_ENDPOINT),
    serviceName:
      settings.MCP_OTEL_SERVICE_NAME ??
      o.OTEL_SERVICE_NAME ??
      o.OTEL_RESOURCE_ATTRIBUTES['service.name'] ??
      settings.MCP_SERVER_NAME,
    serviceVersion,
    resourceAttributes: Object.freeze(o.OTEL_RESOURCE_ATTRIBUTES),
    sampler,
    samplerRatio: ratioAlias ?? o.OTEL_TRACES_SAMPLER_ARG ?? 1,
    propagators: Object.freeze(
      (o.OTEL_PROPAGATORS ?? ['tracecontext', 'baggage']).filter((p): p is PropagatorName => p !== 'none'),
    ),
    spanDelayMs: o.OTEL_BSP_SCHEDULE_DELAY ?? 5000,
    maxExportBatchSize: o.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? 512,
    maxQueueSize: o.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048,
    metricIntervalMs: o.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000,
    temporality: o.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE ?? 'cumulative',
    metricAttributes: settings.MCP_OTEL_METRIC_ATTRIBUTES ?? 'required',
    // As the Node SDK: the enabled list (all when unset), minus the disabled list, which wins.
    instrumentations: Object.freeze(
      BUILT_IN_INSTRUMENTATIONS.filter(
        (name) =>
          (o.OTEL_NODE_ENABLED_INSTRUMENTATIONS ?? BUILT_IN_INSTRUMENTATIONS).includes(name) &&
          !(o.OTEL_NODE_DISABLED_INSTRUMENTATIONS ?? []).includes(name),
      ),
    ),
  });
}
