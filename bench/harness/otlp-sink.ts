/**
 * A tiny OTLP/HTTP receiver on loopback for scenario 4: it accepts every export
 * (`/v1/traces`, `/v1/metrics`, ...), counts requests and bytes, and answers success. An
 * empty body is a valid `Export*ServiceResponse` in protobuf (all fields default), and `{}`
 * in JSON (OTLP specification, "OTLP/HTTP Response").
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  /** Base URL, e.g. `http://127.0.0.1:4318` (exporters append `/v1/traces`). */
  url: string;
  stats(): { requests: number; bytes: number; paths: Record<string, number> };
  close(): Promise<void>;
}

export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const paths: Record<string, number> = {};
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    req.on('end', () => {
      requests++;
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      paths[path] = (paths[path] ?? 0) + 1;
      const json = (req.headers['content-type'] ?? '').includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ requests, bytes, paths: { ...paths } }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
