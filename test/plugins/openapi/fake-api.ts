/**
 * A loopback fake of the petstore API that `fixtures/petstore.yaml` describes, on 127.0.0.1
 * and a free port: it records every request it receives (method, raw path, headers, body) and
 * serves the document itself at `/openapi.yaml`. Writes need the `X-API-Key` it was started
 * with, `/admin/stats` the bearer token; `/store/inventory` answers 503 on every other call;
 * `failNext` makes the next requests to a path fail with a status.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const PETSTORE = new URL('./fixtures/petstore.yaml', import.meta.url);

export interface Recorded {
  method: string;
  /** The request target exactly as received (path and query, still percent-encoded). */
  target: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeApi {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The base URL the operations live under: `<origin>/v1`. */
  readonly baseUrl: string;
  readonly requests: Recorded[];
  /** `/slow` requests whose connection closed before the answer (the client gave up). */
  readonly abandoned: () => number;
  /** The next `count` requests whose path is `path` (under /v1) answer `status`. */
  failNext(path: string, status: number, count?: number, headers?: Record<string, string>): void;
  /** Forgets recorded requests and restores the initial pets. */
  reset(): void;
  close(): Promise<void>;
}

interface Pet {
  id: number;
  name: string;
  tag?: string | null;
  status?: string;
  owner?: { name?: string; address?: { city?: string; zip?: string } };
  category?: unknown;
}

const INITIAL: Pet[] = [
  {
    id: 1,
    name: 'Rex',
    tag: 'dog',
    status: 'available',
    owner: { name: 'Ann', address: { city: 'Oslo', zip: '01234' } },
  },
  { id: 2, name: 'Tom', tag: 'cat', status: 'sold', category: { name: 'cats', parent: { name: 'mammals' } } },
  { id: 3, name: 'Kiwi', tag: null, status: 'pending' },
];

// A 1x1 PNG.
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Starts the fake.
 *
 * @example
 * const api = await startFakeApi({ apiKey: 'k', bearerToken: 't' });
 */
export async function startFakeApi(options: { apiKey: string; bearerToken: string }): Promise<FakeApi> {
  const requests: Recorded[] = [];
  let pets: Pet[] = structuredClone(INITIAL);
  let nextId = 100;
  let inventoryCalls = 0;
  let served = 0;
  let abandoned = 0;
  const failures = new Map<string, { status: number; count: number; headers: Record<string, string> }>();
  const document = await readFile(PETSTORE, 'utf8');

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const target = req.url ?? '/';
    requests.push({ method: req.method ?? '', target, headers: req.headers, body });
    served++;
    const url = new URL(target, 'http://fake');
    if (url.pathname === '/openapi.yaml') {
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(document);
      return;
    }
    if (url.pathname === '/' || url.pathname === '/v1') {
      res.writeHead(404).end();
      return;
    }
    if (!url.pathname.startsWith('/v1/')) return json(res, 404, { message: 'not under /v1' });
    const path = url.pathname.slice(3);
    const failure = failures.get(path);
    if (failure && failure.count > 0) {
      failure.count--;
      return json(res, failure.status, { message: `injected ${failure.status}` }, failure.headers);
    }
    const authorized = req.headers['x-api-key'] === options.apiKey;
    const method = req.method ?? 'GET';
    const petMatch = /^\/pets\/([^/]+)(\/photo)?$/.exec(path);

    if (path === '/pets' && method === 'GET') {
      const tags = url.searchParams.getAll('tags');
      const status = url.searchParams.get('status');
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const list = pets
        .filter((p) => tags.length === 0 || tags.includes(String(p.tag)))
        .filter((p) => status === null || p.status === status)
        .slice(0, limit);
      const echo = req.headers['x-request-id'];
      return json(res, 200, list, typeof echo === 'string' ? { 'x-request-id': echo } : {});
    }
    if (path === '/pets' && method === 'POST') {
      if (!authorized) return json(res, 401, { error: { message: 'A valid X-API-Key header is required' } });
      let input: Partial<Pet>;
      try {
        input = JSON.parse(body) as Partial<Pet>;
      } catch {
        return json(res, 400, { message: 'body is not JSON' });
      }
      if (typeof input.name !== 'string' || input.name === '') {
        return json(res, 422, {
          type: 'about:blank',
          title: 'Unprocessable Entity',
          detail: 'name must be a non-empty string',
        });
      }
      const pet: Pet = { ...input, id: nextId++, name: input.name };
      pets.push(pet);
      return json(res, 201, pet);
    }
    if (petMatch) {
      const id = Number(petMatch[1]);
      const index = pets.findIndex((p) => p.id === id);
      if (petMatch[2] !== undefined) {
        if (index === -1) return json(res, 404, { message: `Pet ${petMatch[1]} not found` });
        res.writeHead(200, { 'content-type': 'image/png' });
        res.end(PNG);
        return;
      }
      if (method !== 'GET' && !authorized)
        return json(res, 401, { message: 'A valid X-API-Key header is required' });
      if (index === -1) return json(res, 404, { code: 404, message: `Pet ${petMatch[1]} not found` });
      if (method === 'GET') return json(res, 200, pets[index]);
      if (method === 'DELETE') {
        pets.splice(index, 1);
        res.writeHead(204).end();
        return;
      }
      if (method === 'PUT') {
        const input = JSON.parse(body) as Partial<Pet>;
        const pet: Pet = { ...input, id, name: String(input.name) };
        pets[index] = pet;
        return json(res, 200, pet);
      }
    }
    if (path.startsWith('/files/') && method === 'GET') {
      res.writeHead(200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(Buffer.byteLength(target)),
      });
      res.end(target);
      return;
    }
    if (path === '/store/inventory' && method === 'GET') {
      inventoryCalls++;
      if (inventoryCalls % 2 === 1)
        return json(res, 503, { message: 'cache warming up' }, { 'retry-after': '0' });
      const counts: Record<string, number> = {};
      for (const p of pets) if (p.status) counts[p.status] = (counts[p.status] ?? 0) + 1;
      return json(res, 200, counts);
    }
    if (path === '/admin/stats' && method === 'GET') {
      if (req.headers.authorization !== `Bearer ${options.bearerToken}`) {
        return json(res, 401, { message: 'bearer token required' }, { 'www-authenticate': 'Bearer' });
      }
      return json(res, 200, { requests: served });
    }
    if (path === '/slow' && method === 'GET') {
      const ms = Math.min(Number(url.searchParams.get('ms') ?? 0), 60_000);
      const timer = setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('done');
      }, ms);
      res.on('close', () => {
        clearTimeout(timer);
        if (!res.writableEnded) abandoned++;
      });
      return;
    }
    if (path === '/health' && method === 'GET') return json(res, 200, { status: 'ok' });
    return json(res, 404, { message: `no route for ${method} ${path}` });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) json(res, 500, { message: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    abandoned: () => abandoned,
    failNext(path, status, count = 1, headers = {}) {
      failures.set(path, { status, count, headers });
    },
    reset() {
      requests.length = 0;
      pets = structuredClone(INITIAL);
      inventoryCalls = 0;
      nextId = 100;
      failures.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
