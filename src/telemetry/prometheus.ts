/**
 * The server's OpenTelemetry metrics for Prometheus to scrape: OpenTelemetry's own Prometheus
 * exporter (`@opentelemetry/exporter-prometheus`, a pull MetricReader on the same
 * MeterProvider as the OTLP reader, so it reads the same instruments, plus the request
 * duration the server aggregates itself through a MetricProducer), served in Prometheus' text
 * format at `/metrics` on a port of its own (MCP_METRICS_PORT). That port carries no MCP and no
 * authentication: what it shows is counts and durations by method, tool and outcome, and it is
 * meant for the scraper's network only. Loaded with our own pipeline only (sdk-pipeline.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import { InternalCode, ToolkitError } from '../base/errors.ts';
import { durationProducer } from './duration-producer.ts';
import type { OwnMetrics } from './sdk-pipeline.ts';

/** Where `/metrics` listens. */
export interface PrometheusTarget {
  readonly host: string;
  readonly port: number;
}

/** The exporter, before and after its port is open. */
export interface PrometheusEndpoint {
  /** The reader to hand the MeterProvider (before the SDK starts). */
  readonly reader: MetricReader;
  /** Opens the port; resolves the URL of `/metrics`. A port in use is an InvalidSetting. */
  listen(): Promise<string>;
  /** Closes the port and its connections. Idempotent. */
  close(): Promise<void>;
}

const PATH = '/metrics';
/** A scrape is one small GET: anything slower than this is not a scraper. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * The exporter as a reader, with the server's own duration producer, and a plain node:http
 * server of ours in front of it (the exporter's own server cannot listen on port 0 and say
 * which port it got). GET or HEAD on `/metrics` (any query) is the exporter's answer; another
 * path is 404, another method 405.
 *
 * @example
 * const endpoint = prometheusEndpoint({ host: '127.0.0.1', port: 9464 }, own);
 * new NodeSDK({ metricReaders: [endpoint.reader] }).start();
 * console.log(await endpoint.listen()); // http://127.0.0.1:9464/metrics
 */
export function prometheusEndpoint(
  target: PrometheusTarget,
  own: OwnMetrics | undefined,
): PrometheusEndpoint {
  // Built before the reader it serves; a pull exporter is cumulative, as Prometheus expects.
  let exporter: PrometheusExporter | undefined;
  const producers =
    own === undefined
      ? []
      : [
          durationProducer(own.durations, own.scope, (type) =>
            (exporter as PrometheusExporter).selectAggregationTemporality(type),
          ),
        ];
  exporter = new PrometheusExporter({ preventServerStart: true, metricProducers: producers });
  const reader = exporter;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== PATH) {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Not found: metrics are at ${PATH}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end();
      return;
    }
    reader.getMetricsRequestHandler(req, res);
  };
  let server: Server | undefined;
  let closing: Promise<void> | undefined;
  return {
    reader,
    async listen() {
      const s = createServer(
        { requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: REQUEST_TIMEOUT_MS },
        handle,
      );
      server = s;
      await new Promise<void>((resolve, reject) => {
        s.once('error', (err: NodeJS.ErrnoException) =>
          reject(
            new ToolkitError(
              InternalCode.InvalidSetting,
              `MCP_METRICS_PORT=${target.port} on ${target.host} cannot be opened (${err.code ?? err.message}): choose another port, or another MCP_METRICS_HOST`,
              { cause: err },
            ),
          ),
        );
        s.listen(target.port, target.host, resolve);
      });
      s.unref();
      const { port } = s.address() as AddressInfo;
      const host = target.host.includes(':') ? `[${target.host}]` : target.host;
      return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${port}${PATH}`;
    },
    close() {
      const s = server;
      if (s === undefined || !s.listening) return Promise.resolve();
      closing ??= new Promise<void>((resolve) => {
        s.close(() => resolve());
        s.closeAllConnections();
      });
      return closing;
    },
  };
}
