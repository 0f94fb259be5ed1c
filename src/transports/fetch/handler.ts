/**
 * The 2026-07-28 stateless wire as a fetch handler: `(request: Request) => Promise<Response>`,
 * for any runtime or framework that speaks the WHATWG fetch API (Hono, Bun, Deno, Next.js
 * route handlers, Cloudflare-style workers). It runs the Fastify transport's rules in the same
 * order (http/routes.ts, edge.ts, body.ts, post.ts), from the same shared functions
 * (http/rules.ts, http/guards.ts) and refusals (src/base/refusals.ts): the path, the Host and
 * Origin checks, the early body-size check, auth, the media type, the body's size and parse,
 * the rate limit, Accept; then the same dispatcher, answering JSON, or SSE once the call sends
 * progress. What needs a stateful transport (initialize, Mcp-Session-Id, a GET stream, DELETE)
 * is refused: 405 with `Allow: POST`, or -32022 for a 2025-wire message. The plugins' own HTTP
 * routes (`app.httpRoute`) are served on their paths after the same Host, Origin and body-size
 * checks, through the Fastify transport's route call (http/route-call.ts).
 */

import type { ProtocolError } from '../../base/errors.ts';
import { encodeMessage, errorResponse, isObject, logEncodeFailure } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import type { Identity } from '../../base/types.ts';
import { ClientPresence, type Exchange, type Reply } from '../../protocol/exchange.ts';
import { header } from '../../protocol/wire.ts';
import { classifyWire } from '../../protocol/wires/classify.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { FetchDeps } from '../deps.ts';
import { hostGuard } from '../http/guards.ts';
import { requestInfo } from '../http/request-info.ts';
import { callRoute, matchRoute, type RouteAnswer, type RouteArrival } from '../http/route-call.ts';
import {
  acceptAllows,
  authRefusal,
  isDispatchedRefusal,
  isJsonContentType,
  parseBody,
  parseRefusal,
  recordRefusal,
  requestCost,
  statusReason,
} from '../http/rules.ts';
import { SSE_HEADERS } from '../http/sse.ts';
import type { FetchHandlerOptions } from './options.ts';
import { FetchChannel } from './stream.ts';

/** What the handler takes of a server: `createServer`'s McpServer has it all. */
export interface FetchServer extends FetchDeps {}

/** What the runtime knows of the client's connection (a fetch Request carries no socket). */
export interface FetchClient {
  /** The client's address: for the per-client rate limit without auth, logs and spans. */
  readonly address?: string | undefined;
  readonly port?: number | undefined;
}

export type FetchHandler = (request: Request, client?: FetchClient) => Promise<Response>;

/** The SSE headers a Response may carry (`connection` is hop-by-hop: the runtime's). */
const STREAM_HEADERS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SSE_HEADERS).filter(([name]) => name !== 'connection'),
);

/** The 2025 wire's default when a client names no version (2025-11-25 transports, Protocol Version Header). */
const UNNAMED_VERSION = '2025-03-26';

/** Lower-case header names, as the dispatcher, the auth layer and telemetry read them. */
function headersOf(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    out[name] = value;
  });
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

/** The body as text, or undefined once it passes `max` bytes. */
async function readBody(request: Request, max: number): Promise<string | undefined> {
  const bytes = await readBytes(request, max);
  return bytes === undefined ? undefined : new TextDecoder().decode(bytes);
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

/** A route's answer as a Response (a 204 or 304 carries no body). */
function routeResponse(answer: RouteAnswer): Response {
  const empty = answer.body === undefined || answer.status === 204 || answer.status === 304;
  return new Response(empty ? null : (answer.body as ConstructorParameters<typeof Response>[0]), {
    status: answer.status,
    headers: answer.headers,
  });
}

/** The version a message that is not on the 2026 wire asks for, for -32022's `data.requested`. */
function requestedVersion(body: unknown, headers: Record<string, string>): string {
  if (isObject(body) && body.method === 'initialize' && isObject(body.params)) {
    const v = body.params.protocolVersion;
    if (typeof v === 'string') return v;
  }
  return header(headers, 'mcp-protocol-version') ?? UNNAMED_VERSION;
}

/**
 * The handler with every option given (src/fetch.ts, the public entry, fills them in from the
 * server's settings).
 *
 * @example
 * const handle = fetchHandler(server, fetchHandlerOptions(httpOptions(settings)));
 */
export function fetchHandler(server: FetchServer, o: FetchHandlerOptions): FetchHandler {
  const guard = hostGuard(o);
  const { auth, limiter, logger, dispatcher, telemetry } = server;
  const routes = server.routes ?? [];
  const encodeFailed = logEncodeFailure(logger);

  return async function handle(request, client = {}) {
    const started = performance.now();
    const url = new URL(request.url);
    const headers = headersOf(request);
    const facts: { body?: unknown; identity?: Identity } = {};
    /** Sends `err` as a JSON-RPC error with its status and headers, and records it (as http/refuse.ts). */
    const refuse = (err: ProtocolError, id: unknown = null): Response => {
      const status = err.httpStatus ?? 400;
      try {
        recordRefusal(
          server,
          {
            httpMethod: request.method,
            body: facts.body,
            headers,
            address: client.address,
            port: client.port,
            identity: facts.identity,
            elapsedMs: performance.now() - started,
          },
          status,
          err,
        );
      } catch (error) {
        logger.error({ err: error }, 'recording a refusal failed');
      }
      const echoed = typeof id === 'string' || typeof id === 'number' ? id : null;
      return new Response(JSON.stringify(errorResponse(echoed, err)), {
        status,
        headers: { ...err.httpHeaders, 'content-type': 'application/json' },
      });
    };

    try {
      const found = url.pathname === o.path ? undefined : matchRoute(routes, request.method, url.pathname);
      if (url.pathname !== o.path && !found) {
        return refuse(Refusal.notFound(request.method, url.pathname, o.path));
      }
      // A Request built by hand has no Host header: its URL's host is what a server derives it from.
      const host = headers.host ?? url.host;
      if (!guard.hostAllowed(host)) return refuse(Refusal.hostNotAllowed(host));
      if (!guard.originAllowed(headers.origin)) return refuse(Refusal.originNotAllowed(headers.origin));
      if ((found || request.method === 'POST') && Number(headers['content-length'] ?? 0) > o.maxBodyBytes) {
        return refuse(Refusal.bodyTooLarge(o.maxBodyBytes));
      }
      if (found) {
        const arrival: RouteArrival = {
          method: request.method,
          url: url.pathname + url.search,
          path: url.pathname,
          params: found.params,
          query: queryOf(url),
          headers,
          address: client.address,
          port: client.port,
          httpVersion: undefined,
          signal: request.signal,
          readBody: () => readBytes(request, o.maxBodyBytes),
          maxBodyBytes: o.maxBodyBytes,
          started,
        };
        const outcome = await callRoute(server, found.route, arrival);
        if (outcome.refusal) {
          facts.identity = outcome.identity;
          return refuse(outcome.refusal);
        }
        return routeResponse(outcome);
      }
      // Auth after the Host/Origin checks, so a rebinding page learns nothing.
      if (auth) {
        try {
          facts.identity = await auth.authenticate({ headers });
        } catch (err) {
          return refuse(authRefusal(err, logger));
        }
      }
      if (request.method !== 'POST') return refuse(Refusal.statelessMethodNotAllowed(request.method));

      if (!isJsonContentType(headers['content-type'])) return refuse(Refusal.unsupportedMediaType());
      const text = await readBody(request, o.maxBodyBytes);
      if (text === undefined) return refuse(Refusal.bodyTooLarge(o.maxBodyBytes));
      let body: unknown;
      try {
        body = parseBody(text);
      } catch (err) {
        return refuse(parseRefusal(err as Error & { code?: unknown }));
      }
      facts.body = body;
      const single = isObject(body) && !Array.isArray(body) ? body : undefined;
      const isRequest = single !== undefined && typeof single.method === 'string' && 'id' in single;
      // Only a request's id is echoed: an error about a posted response or notification has none.
      const id = isRequest ? single.id : null;

      if (limiter && limiter.burst > 0) {
        const cost = requestCost(body);
        if (cost > 0) {
          const decision = await limiter.consume(clientKey(facts.identity, client.address), cost);
          if (!decision.allowed) return refuse(rateLimitError(decision), id);
        }
      }
      const sseOk = acceptAllows(headers.accept, 'text/event-stream');
      if (!acceptAllows(headers.accept, 'application/json') && !sseOk)
        return refuse(Refusal.notAcceptable(), id);
      // The message's wire profile, chosen here once and handed to the dispatcher: this
      // endpoint has no sessions, so a message of a wire that needs one is refused.
      const profile = classifyWire(body, headers);
      if (profile.sessions) return refuse(Refusal.statelessOnly(requestedVersion(body, headers)), id);
      // A listen stream is nothing but SSE: on a JSON-only client it could never deliver anything.
      if (single?.method === 'subscriptions/listen' && !sseOk)
        return refuse(Refusal.listenNeedsEventStream(), id);

      const presence = new ClientPresence();
      const channel = new FetchChannel(
        sseOk ? { keepAliveMs: o.sseKeepAliveMs, onCancel: () => presence.leave(), logger } : undefined,
      );
      const left = () => presence.leave();
      request.signal.addEventListener('abort', left, { once: true });
      const exchange: Exchange = {
        transport: 'http',
        profile,
        headers,
        channel,
        presence,
        identity: facts.identity,
        address: client.address,
        http: requestInfo(request.method, url.pathname + url.search, headers, o.trustProxy),
        port: client.port,
      };
      const pending = dispatcher.handle(body, exchange);
      const first = await Promise.race([pending, channel.opened]);
      const stream = channel.stream;
      if (stream) {
        pending.then(
          (reply) => {
            request.signal.removeEventListener('abort', left);
            if (Array.isArray(reply.body)) for (const response of reply.body) stream.send(response);
            stream.finish(Array.isArray(reply.body) ? undefined : reply.body);
          },
          (err: unknown) => {
            logger.error({ err }, 'fetch handler: the dispatcher failed');
            stream.finish();
          },
        );
        return new Response(stream.readable, { status: 200, headers: STREAM_HEADERS });
      }
      request.signal.removeEventListener('abort', left);
      const reply = first as Reply;
      if (reply.body === undefined) return new Response(null, { status: 202 });
      const status = reply.status ?? 200;
      if (isDispatchedRefusal(status)) telemetry.countRefusal(status, statusReason(status) ?? 'refused');
      const payload = encodeMessage(reply.body, encodeFailed);
      if (payload === undefined) return new Response(null, { status: 202 });
      return new Response(payload, {
        status,
        headers: { ...reply.headers, 'content-type': 'application/json' },
      });
    } catch (err) {
      logger.error({ err }, 'fetch handler error');
      return refuse(Refusal.internal());
    }
  };
}
