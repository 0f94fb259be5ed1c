/**
 * The MCP endpoint as a fetch handler, `(request: Request) => Promise<Response>`, for any
 * runtime or framework that speaks the WHATWG fetch API (Hono, Bun, Deno and workerd are
 * tested: test/transports/runtimes.test.ts): the HTTP edge (src/transports/edge/pipeline.ts, where
 * the order of its stages is written) with a fetch Request as its request and a Response as its
 * answer (stream.ts). Both wires: the 2026 stateless one, and the 2025 one with its sessions
 * in the server's store (GET streams, DELETE, resumable streams), or, with
 * `sessions: 'stateless'`, each 2025-wire request served on its own. The plugins'
 * own HTTP routes (`app.httpRoute`) are served on their paths after the same Host, Origin and
 * body-size checks, through the route call (edge/route-call.ts).
 */
import type { ProtocolError } from '../../base/errors.ts';
import { Refusal } from '../../base/refusals.ts';
import type { FetchDeps } from '../deps.ts';
import type { Edge } from '../edge/pipeline.ts';
import { createEdge } from '../edge/pipeline.ts';
import { callRoute, matchRoute, type RouteArrival } from '../edge/route-call.ts';
import { edgeOptionsOf, type FetchHandlerOptions } from './options.ts';
import { FETCH_HOST, FetchAnswer, type FetchRequest } from './stream.ts';

/** What the handler takes of a server: `createServer`'s McpServer has it all. */
export interface FetchServer extends FetchDeps {}

/** What the runtime knows of the client's connection (a fetch Request carries no socket). */
export interface FetchClient {
  /** The client's address: for the per-client rate limit without auth, logs and spans. */
  readonly address?: string | undefined;
  readonly port?: number | undefined;
}

export type FetchHandler = (request: Request, client?: FetchClient) => Promise<Response>;

/** Lower-case header names, as the edge reads them; a Request built by hand gets its URL's host as Host. */
function headersOf(request: Request, url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    out[name] = value;
  });
  out.host ??= url.host;
  return out;
}

/** The body's bytes, or undefined once it passes `max` bytes (reading stops there). */
async function readBytes(request: Request, max: number): Promise<Uint8Array | undefined> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** The query string as a route's handler gets it: a repeated key gives an array. */
function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of url.searchParams) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/**
 * Stage 4 for a fetch Request, as Fastify's content parsers do it (src/transports/http/body.ts):
 * no body for GET and HEAD; a body of another media type refused before it is read; JSON read
 * within the limit and parsed. Undefined once refused.
 */
async function readBody(
  edge: Edge<FetchRequest, FetchAnswer>,
  req: FetchRequest,
  answer: FetchAnswer,
  request: Request,
): Promise<boolean> {
  if (request.method === 'GET' || request.method === 'HEAD' || request.body === null) return true;
  const contentType = req.headers['content-type'] as string | undefined;
  // As Fastify: with neither a type nor a declared body, there is no body (a runtime may still
  // hand an empty stream); with a declared body but no type, the media type is refused.
  const length = req.headers['content-length'];
  const declared = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  if (contentType === undefined && !declared) return true;
  const bytes = contentType === undefined ? new Uint8Array(0) : await readBytes(request, edge.maxBodyBytes);
  if (bytes === undefined) {
    edge.refuse(req, answer, Refusal.bodyTooLarge(edge.maxBodyBytes), null);
    return false;
  }
  try {
    req.body = edge.readJson(contentType, new TextDecoder().decode(bytes));
  } catch (err) {
    edge.refuse(req, answer, err as ProtocolError, null);
    return false;
  }
  return true;
}

/**
 * The handler with every option given (src/fetch.ts, the public entry, fills them in from the
 * server's settings).
 *
 * @example
 * const handle = fetchHandler(server, fetchHandlerOptions(httpOptions(settings)));
 */
export function fetchHandler(server: FetchServer, o: FetchHandlerOptions): FetchHandler {
  const { logger } = server;
  const routes = server.routes ?? [];
  const edge = createEdge<FetchRequest, FetchAnswer>({
    deps: server,
    options: edgeOptionsOf(o),
    host: FETCH_HOST,
    sessions: o.sessions,
    eventRetention: o.eventRetention,
    identify: o.identify && ((req: FetchRequest) => (o.identify as NonNullable<typeof o.identify>)(req.raw)),
  });

  async function serve(request: Request, url: URL, req: FetchRequest, answer: FetchAnswer): Promise<void> {
    const found = url.pathname === o.path ? undefined : matchRoute(routes, request.method, url.pathname);
    if (url.pathname !== o.path && !found) {
      edge.refuse(req, answer, Refusal.notFound(request.method, url.pathname, o.path), null);
      return;
    }
    if (found) {
      const screened = edge.screen(req);
      if (screened) {
        edge.refuse(req, answer, screened, null);
        return;
      }
      const arrival: RouteArrival = {
        method: request.method,
        url: req.url,
        path: url.pathname,
        params: found.params,
        query: queryOf(url),
        headers: req.headers,
        address: req.ip,
        port: req.port,
        httpVersion: undefined,
        signal: request.signal,
        readBody: () => readBytes(request, o.maxBodyBytes),
        maxBodyBytes: o.maxBodyBytes,
        started: req.started,
        identify: o.identify && (() => (o.identify as NonNullable<typeof o.identify>)(request)),
      };
      const outcome = await callRoute(server, found.route, arrival);
      if (outcome.refusal) {
        req.mcpIdentity = outcome.identity;
        edge.refuse(req, answer, outcome.refusal, null);
        return;
      }
      FETCH_HOST.send(answer, outcome.status, outcome.headers, outcome.body);
      return;
    }
    const refusal = await edge.admit(req);
    if (refusal) {
      edge.refuse(req, answer, refusal, null);
      return;
    }
    if (!(await readBody(edge, req, answer, request))) return;
    await edge.respond(req, answer);
  }

  return function handle(request, client = {}) {
    const url = new URL(request.url);
    const req: FetchRequest = {
      raw: request,
      method: request.method,
      url: url.pathname + url.search,
      headers: headersOf(request, url),
      ip: client.address,
      port: client.port,
      started: performance.now(),
      body: undefined,
      mcpIdentity: undefined,
      mcpDispatched: false,
    };
    const answer = new FetchAnswer(request.signal);
    serve(request, url, req, answer).catch((err: unknown) => {
      logger.error({ err }, 'fetch handler error');
      if (!answer.answered) edge.refuse(req, answer, Refusal.internal(), null);
    });
    return answer.response;
  };
}
