/**
 * A plain round-robin load balancer on loopback, for replica tests: each request goes to the
 * next replica in turn (no affinity, no cookies, a new upstream connection per request), so
 * consecutive steps of one user land on different replicas. It records which replica answered
 * each request.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobin {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** The replicas' origins (`http://127.0.0.1:<port>`), in turn order; set before the first request. */
  targets: string[];
  /** Each request: its method and path, and the index of the replica that got it. */
  readonly log: { method: string; path: string; replica: number }[];
  close(): Promise<void>;
}

/**
 * @example
 * const lb = await startRoundRobin();
 * lb.targets = [a.origin, b.origin, c.origin];
 */
export async function startRoundRobin(port = 0): Promise<RoundRobin> {
  let next = 0;
  const log: RoundRobin['log'] = [];
  const balancer: RoundRobin = {
    url: '',
    port: 0,
    targets: [],
    log,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const index = next++ % Math.max(1, balancer.targets.length);
    const target = balancer.targets[index];
    if (target === undefined) {
      res.writeHead(503).end('no replicas');
      return;
    }
    log.push({
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://x').pathname,
      replica: index,
    });
    const upstream = request(
      `${target}${req.url ?? '/'}`,
      // The Host header is kept: the replicas see the public address, as behind a real balancer.
      { method: req.method, headers: { ...req.headers, connection: 'close' }, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end('replica unreachable');
      else res.destroy();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return Object.assign(balancer, { url: `http://127.0.0.1:${bound}`, port: bound });
}
