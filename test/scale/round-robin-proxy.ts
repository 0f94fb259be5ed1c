/**
 * A plain round-robin load balancer for the scale-out tests and `npm run conformance --
 * --replicas 2`: no affinity, each request to the next upstream in turn, bodies streamed
 * through both ways (SSE included), the client's Host header kept. Every request is logged
 * with the upstream that served it (and its JSON-RPC body, which it buffers: MCP bodies are
 * small), so a test can show that consecutive requests reached different replicas.
 */
import { once } from 'node:events';
import http, { type IncomingHttpHeaders } from 'node:http';

export interface ProxiedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when empty or not JSON). */
  readonly body: unknown;
}

export interface ProxyLogEntry extends ProxiedRequest {
  /** Index of the upstream that served it. */
  readonly upstream: number;
  /** The status the upstream answered (undefined while it has not, or when it failed). */
  status?: number;
}

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly log: ProxyLogEntry[];
  /**
   * Overrides the choice for a request (a test steering one request); undefined, or a
   * function that returns undefined, keeps strict round robin.
   */
  route: ((request: ProxiedRequest) => number | undefined) | undefined;
  /** Points upstream `index` at another origin (a replica restarted on a new port). */
  replace(index: number, origin: string): void;
  close(): Promise<void>;
}

/**
 * @param upstreams origins, e.g. `http://127.0.0.1:41234`
 *
 * @example
 * const proxy = await startRoundRobinProxy([a.origin, b.origin]);
 * const url = `${proxy.origin}/mcp`;
 */
export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  if (upstreams.length === 0) throw new RangeError('startRoundRobinProxy: no upstreams');
  const targets = upstreams.map((u) => new URL(u));
  const log: ProxyLogEntry[] = [];
  let next = 0;
  const proxy: RoundRobinProxy = {
    origin: '',
    log,
    route: undefined,
    replace(index, origin) {
      if (index < 0 || index >= targets.length) throw new RangeError(`no upstream ${index}`);
      targets[index] = new URL(origin);
    },
    close: async () => {},
  };

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    let body: unknown;
    try {
      body = raw.length > 0 ? JSON.parse(raw.toString('utf8')) : undefined;
    } catch {
      body = undefined;
    }
    const request: ProxiedRequest = { method: req.method ?? 'GET', headers: req.headers, body };
    const steered = proxy.route?.(request);
    const index = steered ?? next++ % targets.length;
    const target = targets[index] as URL;
    const entry: ProxyLogEntry = { ...request, upstream: index };
    log.push(entry);
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (up) => {
        entry.status = up.statusCode;
        res.writeHead(up.statusCode ?? 502, up.headers);
        res.flushHeaders();
        up.pipe(res);
        up.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    // The client went away (a dropped SSE stream): drop the upstream connection too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(raw);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return Object.assign(proxy, {
    origin: `http://127.0.0.1:${address.port}`,
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  });
}
