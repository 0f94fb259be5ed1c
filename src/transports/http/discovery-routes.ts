/**
 * What the HTTP server shows before anyone connects: the server card at
 * `<MCP endpoint>/server-card` (SEP-2127), the catalogs at `/.well-known/mcp/catalog.json`
 * and `/.well-known/ai-catalog.json`, and the landing page for browsers. A scope of its own,
 * beside the MCP routes: the Host check applies (DNS rebinding), auth does not (the documents
 * hold only what the auth mode lets anyone see), and the rate limit does, per address.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SERVER_CARD_MEDIA_TYPE, serverCardUrl } from '../../base/card-check.ts';
import type { JsonObject } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { AI_CATALOG_MEDIA_TYPE, buildAiCatalog, buildMcpCatalog } from '../../discovery/catalog.ts';
import { LANDING_PAGE_CSP, renderLandingPage } from '../../discovery/landing-page.ts';
import { buildServerCard } from '../../discovery/server-card.ts';
import type { ServerDescription } from '../../discovery/server-description.ts';
import { rateLimitError } from '../../ratelimit/errors.ts';
import { clientKey } from '../../ratelimit/limiter.ts';
import type { HttpDeps } from '../deps.ts';
import { createHostGuard } from '../edge/guards.ts';
import type { HttpOptions } from './options.ts';
import { refuse } from './refuse.ts';

export interface DiscoveryRoutesOptions {
  server: HttpDeps;
  http: HttpOptions;
  /** The catalogs at the root's `/.well-known/` (default true; the card is always served). */
  catalogs?: boolean;
}

/** The draft's caching advice (SEP-2127 "Caching"): shared caches may keep it, ETag revalidates. */
const CARD_CACHE = 'public, max-age=300';
const CATALOG_CACHE = 'public, max-age=3600';

/** Discovery documents hold public metadata only, so any origin may read them (draft "CORS Requirements"). */
const OPEN_CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET',
  'access-control-allow-headers': 'Content-Type, If-None-Match',
  'access-control-expose-headers': 'ETag',
};

/**
 * The public base URL: the configured one, else the origin the request came to (Host, or
 * X-Forwarded-Host/-Proto behind a trusted proxy). The Host has passed the allow-list when
 * one is on, and a shared cache keys on it, so one host's card is never served for another.
 */
function requestBaseUrl(req: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${req.protocol}://${req.host}`;
}

/** Strong validator of a body (the draft leaves its form to the host). */
function etagOf(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/** RFC 9110 §13.1.2: `*`, or a list of (weak or strong) tags compared weakly for GET. */
function notModified(req: FastifyRequest, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/** Sends a discovery JSON document with its media type, caching headers and ETag. */
function sendDocument(
  req: FastifyRequest,
  reply: FastifyReply,
  doc: JsonObject,
  mediaType: string,
  cache: string,
): FastifyReply {
  const body = JSON.stringify(doc);
  const etag = etagOf(body);
  reply.headers({ ...OPEN_CORS, 'cache-control': cache, etag, vary: 'Accept-Encoding' });
  if (notModified(req, etag)) return reply.code(304).send();
  return reply.code(200).header('content-type', `${mediaType}; charset=utf-8`).send(body);
}

/**
 * A browser's GET: it asks for HTML and not for an event stream. An MCP client's GET on the
 * endpoint (Accept: text/event-stream) opens the SSE stream, as the transport requires.
 */
export function wantsHtml(accept: string | undefined): boolean {
  return accept?.includes('text/html') === true && !accept.includes('text/event-stream');
}

function sendLandingPage(reply: FastifyReply, d: ServerDescription): FastifyReply {
  return reply
    .code(200)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': LANDING_PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
      'cache-control': 'no-cache',
      vary: 'Accept',
    })
    .send(renderLandingPage(d));
}

/**
 * What every discovery route runs before its handler, as an onRequest hook: the Host check,
 * then one token per address (the draft asks for a rate limit on the card).
 */
function discoveryGate(
  server: HttpDeps,
  http: HttpOptions,
): (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => void {
  const guard = createHostGuard(http);
  const { limiter } = server;
  return (req, reply, done) => {
    if (!guard.hostAllowed(req.headers.host)) {
      refuse(server, req, reply, Refusal.hostNotAllowed(req.headers.host), null);
      return;
    }
    if (!limiter || limiter.burst <= 0 || req.method === 'OPTIONS') return done();
    limiter.consume(clientKey(undefined, req.ip), 1).then(
      (decision) => {
        if (decision.allowed) done();
        else refuse(server, req, reply, rateLimitError(decision));
      },
      (err: unknown) => done(err instanceof Error ? err : new Error(String(err))),
    );
  };
}

/**
 * The landing page on the MCP path itself, for the MCP routes to hand a browser's GET to
 * (`wantsHtml`), decided in their onRequest hook: GET on the path is one route, and a POST
 * reads no Accept header for it. Answered with the discovery routes' checks (Host, rate limit),
 * not the endpoint's (no auth). Undefined when the landing page is off.
 */
export function landingOnPath(
  server: HttpDeps,
  http: HttpOptions,
): ((req: FastifyRequest, reply: FastifyReply) => void) | undefined {
  if (!http.landingPage) return undefined;
  const gate = discoveryGate(server, http);
  return (req, reply) =>
    gate(req, reply, (err) => {
      if (err) reply.send(err);
      else sendLandingPage(reply, server.describe(requestBaseUrl(req, http.publicUrl)));
    });
}

export async function discoveryRoutes(app: FastifyInstance, options: DiscoveryRoutesOptions): Promise<void> {
  const { server, http } = options;
  app.addHook('onRequest', discoveryGate(server, http));

  const describe = (req: FastifyRequest): ServerDescription =>
    server.describe(requestBaseUrl(req, http.publicUrl));

  const cardPath = new URL(serverCardUrl(`http://x${http.path}`)).pathname;
  const documents: {
    path: string;
    build: (d: ServerDescription) => JsonObject;
    type: string;
    cache: string;
  }[] = [
    { path: cardPath, build: buildServerCard, type: SERVER_CARD_MEDIA_TYPE, cache: CARD_CACHE },
    {
      path: '/.well-known/mcp/catalog.json',
      build: buildMcpCatalog,
      type: 'application/json',
      cache: CATALOG_CACHE,
    },
    {
      path: '/.well-known/ai-catalog.json',
      build: buildAiCatalog,
      type: AI_CATALOG_MEDIA_TYPE,
      cache: CATALOG_CACHE,
    },
  ];
  // Embedded in an application (the Fastify plugin), the root-level catalogs are opt-in.
  if (options.catalogs === false) documents.splice(1);
  if (http.landingPage) {
    const landing = async (req: FastifyRequest, reply: FastifyReply) => sendLandingPage(reply, describe(req));
    // On the MCP path itself the MCP routes answer it (landingOnPath).
    if (http.path !== '/') app.get('/', landing);
  }
  for (const doc of documents) {
    app.get(doc.path, async (req, reply) =>
      sendDocument(req, reply, doc.build(describe(req)), doc.type, doc.cache),
    );
    app.options(doc.path, async (_req, reply) => reply.code(204).headers(OPEN_CORS).send());
  }
}
