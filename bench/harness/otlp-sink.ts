/**
 * A tiny OTLP/HTTP receiver on loopback for scenario 4: it accepts every export
 * (`/v1/traces`, `/v1/metrics`, ...), counts requests and bytes per path, and answers success.
 * An empty body is a valid `Export*ServiceResponse` in protobuf (all fields default), and `{}`
 * in JSON (OTLP specification, "OTLP/HTTP Response"). Each server may be given its own base
 * URL (`${url}/<name>`, to which its exporters append `/v1/traces`), so that `stats(name)`
 * counts what that server alone sent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSinkStats {
  requests: number;
  bytes: number;
  /** Exports per path, e.g. `{"/ours-secured/v1/traces": 12}`. */
  paths: Record<string, number>;
}

export interface OtlpSink {
  /** Base URL, e.g. `http://127.0.0.1:4318` (exporters append `/v1/traces`). */
  url: string;
  /** What was received, in all or under `/<prefix>/` only. */
  stats(prefix?: string): OtlpSinkStats;
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  const received = new Map<string, { requests: number; bytes: number }>();
  const server = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const counts = received.get(path) ?? { requests: 0, bytes: 0 };
      counts.requests++;
      counts.bytes += bytes;
      received.set(path, counts);
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats(prefix) {
      const stats: OtlpSinkStats = { requests: 0, bytes: 0, paths: {} };
      for (const [path, counts] of received) {
        if (prefix !== undefined && !path.startsWith(`/${prefix}/`)) continue;
        stats.requests += counts.requests;
        stats.bytes += counts.bytes;
        stats.paths[path] = counts.requests;
      }
      return stats;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
