/**
 * Where MCP clients publish their Client ID Metadata Documents, for tests: an https server on
 * 127.0.0.1 with a throwaway self-signed certificate (made with `openssl`, for `localhost` and
 * 127.0.0.1), trusted by this process (`tls.setDefaultCACertificates`) and by the processes a
 * test starts (`NODE_EXTRA_CA_CERTS=caFile`). Each path answers what the test sets: a document,
 * a redirect, a body too large, an answer too slow.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';

export type CimdRoute = (req: IncomingMessage, res: ServerResponse) => void;

export interface CimdHost {
  /** `https://127.0.0.1:<port>`. */
  readonly origin: string;
  /** `https://localhost:<port>`: a name that resolves to loopback. */
  readonly localhostOrigin: string;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS of a child process. */
  readonly caFile: string;
  /** Answers `path` with `route`. */
  route(path: string, route: CimdRoute): void;
  /** Serves a client's document at `path` (its `client_id` is the URL); returns the URL. */
  document(path: string, metadata: Record<string, unknown>, headers?: Record<string, string>): string;
  /** How many GETs each path received. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Why these tests cannot run here, or undefined (for node:test's `skip`). */
export function cimdHostMissing(): string | undefined {
  if (typeof (tls as { setDefaultCACertificates?: unknown }).setDefaultCACertificates !== 'function') {
    return `Node ${process.version} has no tls.setDefaultCACertificates (Node 22.19 / 24.5 or later)`;
  }
  const found = spawnSync('openssl', ['version'], { stdio: 'ignore' });
  return found.status === 0 ? undefined : 'openssl is not installed (apt-get install openssl)';
}

let made: { cert: string; key: string; file: string } | undefined;

function certificate(): { cert: string; key: string; file: string } {
  if (made !== undefined) return made;
  const dir = mkdtempSync(path.join(tmpdir(), 'mcp-cimd-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  const result = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`openssl could not make a test certificate: ${result.stderr}`);
  const cert = readFileSync(certFile, 'utf8');
  // This process trusts it from now on (fetch included); the system's roots stay trusted.
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), cert]);
  made = { cert, key: readFileSync(keyFile, 'utf8'), file: certFile };
  return made;
}

/**
 * @example
 * const host = await startCimdHost();
 * const clientId = host.document('/client.json', { client_name: 'Test', redirect_uris: ['http://127.0.0.1:9/cb'] });
 */
export async function startCimdHost(): Promise<CimdHost> {
  const { cert, key, file } = certificate();
  const routes = new Map<string, CimdRoute>();
  const counts = new Map<string, number>();
  const server: Server = createServer({ cert, key }, (req, res) => {
    const p = new URL(req.url ?? '/', 'https://x').pathname;
    counts.set(p, (counts.get(p) ?? 0) + 1);
    const route = routes.get(p);
    if (route === undefined) {
      res.writeHead(404).end();
      return;
    }
    route(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `https://127.0.0.1:${port}`;
  return {
    origin,
    localhostOrigin: `https://localhost:${port}`,
    caFile: file,
    route: (p, route) => void routes.set(p, route),
    document(p, metadata, headers = {}) {
      const url = `${origin}${p}`;
      const body = JSON.stringify({ client_id: url, ...metadata });
      routes.set(p, (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(body);
      });
      return url;
    },
    hits: (p) => counts.get(p) ?? 0,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
