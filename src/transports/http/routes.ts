/**
 * The streamable HTTP transport as a Fastify plugin: POST, GET and DELETE on the MCP path
 * mapped onto the dispatcher (MCP 2025-11-25 "Streamable HTTP"; the 2026 stateless wire on
 * the same endpoint, routed per request).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProtocolError } from '../../base/errors.ts';
import {
  encodeMessage,
  isObject,
  type JsonRpcMessage,
  type JsonRpcRequest,
  logEncodeFailure,
} from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { SUPPORTED_VERSIONS } from '../../base/versions.ts';
import type { Settings } from '../../config/settings.ts';
import { ClientPresence, type Exchange } from '../../protocol/exchange.ts';
import type { OutboundChannel } from '../../protocol/hub.ts';
import type { Session } from '../../protocol/session.ts';
import { header, isModernRequest } from '../../protocol/wire.ts';
import type { HttpDeps } from '../deps.ts';
import { installBodyHandling } from './body.ts';
import { installEdge } from './edge.ts';
import { createMemoryEventStore, type EventStore } from './event-store.ts';
import { createHostGuard } from './guards.ts';
import { requestInfo } from './request-info.ts';
import { sendError } from './send-error.ts';
import { followStored, replayFinished, SseStream } from './sse.ts';

export interface McpRoutesOptions {
  server: HttpDeps;
  settings: Settings;
  eventStore?: EventStore;
}

/**
 * A shared store that cannot be reached answers with its own ProtocolError (503 and
 * Retry-After, src/scale/); anything else is a bug and goes to the error handler.
 */
function sendStoreError(reply: FastifyReply, err: unknown, id: unknown = null) {
  if (!(err instanceof ProtocolError) || err.httpStatus === undefined) throw err;
  return sendError(reply, err, id);
}

function accepts(req: FastifyRequest, type: string): boolean {
  const accept = req.headers.accept;
  if (accept === undefined || accept === '') return true;
  return accept.includes(type) || accept.includes('*/*');
}

/** A POST's channel: stays JSON until the first related message, then becomes an SSE stream. */
class PostChannel implements OutboundChannel {
  stream: SseStream | undefined;
  readonly #open: (() => SseStream) | undefined;
  readonly #resumable: boolean;
  constructor(open: (() => SseStream) | undefined, resumable: boolean) {
    this.#open = open;
    this.#resumable = resumable;
  }
  send(message: JsonRpcMessage): void {
    if (!this.#open) return; // the client accepts JSON only: related messages cannot be delivered
    this.stream ??= this.#open();
    this.stream.send(message);
  }
  async disconnect(): Promise<void> {
    // Only a resumable stream (2025 wire, 2025-11-25+) may be closed early: elsewhere the
    // client could not reconnect and the result would be lost.
    if (!this.#open || !this.#resumable) return;
    this.stream ??= this.#open();
    await this.stream.disconnect();
  }
}

export async function mcpRoutes(app: FastifyInstance, options: McpRoutesOptions): Promise<void> {
  const { server, settings } = options;
  const path = settings.MCP_HTTP_PATH;
  const guard = createHostGuard(settings);
  const store =
    options.eventStore ??
    server.eventStore ??
    createMemoryEventStore({ retention: settings.MCP_EVENT_RETENTION });
  /** Live POST streams by id, so a GET with Last-Event-ID can re-attach. */
  const live = new Map<string, { stream: SseStream; sessionId: string }>();
  /**
   * Standalone GET streams by id. A dropped one stays attached (its events go on into the
   * store) for a grace period, so a reconnect with Last-Event-ID gets what it missed.
   */
  const standalone = new Map<string, { sessionId: string; retire: () => void }>();
  const STANDALONE_GRACE_MS = 60_000;
  const maxBody = settings.MCP_MAX_BODY_BYTES;
  const encodeFailed = logEncodeFailure(server.logger);
  const trustProxy = settings.MCP_TRUST_PROXY !== false;

  app.addHook('onRequest', async (req, reply) => {
    if (!guard.hostAllowed(req.headers.host)) {
      return sendError(reply, Refusal.hostNotAllowed(req.headers.host));
    }
    if (!guard.originAllowed(req.headers.origin)) {
      return sendError(reply, Refusal.originNotAllowed(req.headers.origin));
    }
    if (req.method === 'POST') {
      const length = Number(req.headers['content-length'] ?? 0);
      if (length > maxBody) {
        return sendError(reply, Refusal.bodyTooLarge(maxBody));
      }
    }
  });

  // Auth and rate limits run after the Host/Origin checks, so a rebinding page learns nothing.
  installEdge(app, server);

  installBodyHandling(app, server, maxBody);

  const sessionFor = async (
    req: FastifyRequest,
    reply: FastifyReply,
    id?: unknown,
  ): Promise<Session | undefined> => {
    const sid = header(req.headers, 'mcp-session-id');
    if (!sid) {
      sendError(reply, Refusal.sessionRequired(), id);
      return undefined;
    }
    let session: Session | undefined;
    try {
      session = await server.sessions.get(sid);
    } catch (err) {
      sendStoreError(reply, err, id);
      return undefined;
    }
    if (!session) {
      sendError(reply, Refusal.sessionNotFound(), id);
      return undefined;
    }
    return session;
  };

  const streamHeaders = (sessionId: string | undefined): Record<string, string> =>
    sessionId ? { 'mcp-session-id': sessionId } : {};

  app.post(path, async (req, reply) => {
    const body = req.body;
    if (body === undefined) {
      return sendError(reply, Refusal.unsupportedMediaType());
    }
    const single = !Array.isArray(body) && isObject(body) ? body : undefined;
    const isRequest = single !== undefined && typeof single.method === 'string' && 'id' in single;
    const modern = isRequest && isModernRequest(single as unknown as JsonRpcRequest, req.headers);
    // Only a request's id is echoed: an error about a posted response or notification has
    // none (2025-11-25 transports, "Sending Messages to the Server").
    const firstId = isRequest ? single?.id : null;
    if (!accepts(req, 'application/json') && !accepts(req, 'text/event-stream')) {
      return sendError(reply, Refusal.notAcceptable(), firstId);
    }
    // A listen stream is nothing but SSE: held open on a JSON-only client it could never
    // deliver anything, so it is refused at once.
    if (modern && single?.method === 'subscriptions/listen' && !accepts(req, 'text/event-stream')) {
      return sendError(reply, Refusal.listenNeedsEventStream(), firstId);
    }

    let session: Session | undefined;
    if (!modern && !(isRequest && single?.method === 'initialize')) {
      const pv = header(req.headers, 'mcp-protocol-version');
      if (pv !== undefined && !SUPPORTED_VERSIONS.includes(pv)) {
        return sendError(reply, Refusal.unsupportedProtocolVersion(pv, SUPPORTED_VERSIONS), firstId);
      }
      session = await sessionFor(req, reply, firstId);
      if (!session) return reply;
    }

    const sseOk = accepts(req, 'text/event-stream');
    const resumable = !modern && session !== undefined && session.protocolVersion >= '2025-11-25';
    let sessionHeader = session?.id;
    const channel = new PostChannel(
      sseOk
        ? () => {
            reply.hijack();
            const streamId = randomUUID();
            const stream = new SseStream(reply.raw, {
              streamId,
              store: resumable ? store : undefined,
              keepAliveMs: settings.MCP_SSE_KEEPALIVE_MS,
              primeRetryMs: resumable ? settings.MCP_SSE_RETRY_MS : undefined,
              headers: streamHeaders(sessionHeader),
              logger: server.logger,
            });
            if (resumable && session) live.set(streamId, { stream, sessionId: session.id });
            return stream;
          }
        : undefined,
      resumable,
    );
    const presence = new ClientPresence();
    reply.raw.on('close', () => {
      // A resumable stream outlives its connection; anything else is abandoned with it.
      if (!reply.raw.writableFinished && !(resumable && channel.stream)) presence.leave();
    });
    const exchange: Exchange = {
      transport: 'http',
      headers: req.headers,
      session,
      channel,
      presence,
      identity: req.mcpIdentity,
      address: req.ip,
      http: requestInfo(req.method, req.url, req.headers, trustProxy),
      port: req.socket.remotePort,
      httpVersion: req.raw.httpVersion,
    };
    req.mcpDispatched = true;
    const result = await server.dispatcher.handle(body, exchange);
    if (result.session) sessionHeader = result.session.id;

    if (channel.stream) {
      const stream = channel.stream;
      // A batch's replies go out one event each (2025-03-26 transports: the stream carries one
      // response per request in the POST), then the stream ends.
      if (Array.isArray(result.body)) for (const response of result.body) stream.send(response);
      await stream.finish(Array.isArray(result.body) ? undefined : result.body);
      live.delete(stream.streamId);
      return reply;
    }
    if (result.body === undefined) return reply.code(202).send();
    if (sessionHeader && result.session) reply.header('mcp-session-id', sessionHeader);
    if (result.headers) for (const [k, v] of Object.entries(result.headers)) reply.header(k, v);
    const text = encodeMessage(result.body, encodeFailed);
    if (text === undefined) return reply.code(202).send();
    return reply
      .code(result.status ?? 200)
      .header('content-type', 'application/json')
      .send(text);
  });

  app.get(path, async (req, reply) => {
    if (!accepts(req, 'text/event-stream')) {
      return sendError(reply, Refusal.streamNeedsEventStream());
    }
    const session = await sessionFor(req, reply);
    if (!session) return reply;
    const lastEventId = header(req.headers, 'last-event-id');
    let streamId: string | undefined;
    try {
      streamId = lastEventId ? await store.streamOf(lastEventId) : undefined;
    } catch (err) {
      return sendStoreError(reply, err);
    }
    // Resuming a standalone stream: what it missed, then a fresh standalone stream.
    let replay: Awaited<ReturnType<EventStore['after']>> | undefined;
    const previous = streamId ? standalone.get(streamId) : undefined;
    if (lastEventId && previous?.sessionId === session.id) {
      previous.retire();
      try {
        replay = await store.after(lastEventId);
      } catch (err) {
        return sendStoreError(reply, err);
      }
    }
    reply.hijack();
    if (lastEventId && streamId && replay === undefined) {
      const entry = live.get(streamId);
      const follow = store.follow?.bind(store);
      if (entry && entry.sessionId === session.id) {
        await entry.stream.resume(reply.raw, lastEventId, streamHeaders(session.id));
      } else if (follow) {
        // A shared store: the stream may still be live on another replica.
        await followStored(reply.raw, follow, lastEventId, {
          headers: streamHeaders(session.id),
          keepAliveMs: settings.MCP_SSE_KEEPALIVE_MS,
        });
      } else {
        await replayFinished(reply.raw, store, lastEventId, streamHeaders(session.id));
      }
      return reply;
    }
    // Standalone events are stored too, so the priming event's id lets a client resume
    // (2025-11-25 SSE resumability) and get the notifications it missed.
    const resumable = session.protocolVersion >= '2025-11-25';
    const stream = new SseStream(reply.raw, {
      streamId: randomUUID(),
      store: resumable ? store : undefined,
      keepAliveMs: settings.MCP_SSE_KEEPALIVE_MS,
      primeRetryMs: resumable ? settings.MCP_SSE_RETRY_MS : undefined,
      headers: streamHeaders(session.id),
      replay,
      logger: server.logger,
    });
    const detach = server.hub.attachSession(session.id, stream);
    if (!resumable) {
      reply.raw.on('close', detach);
      return reply;
    }
    let timer: NodeJS.Timeout | undefined;
    const retire = () => {
      clearTimeout(timer);
      detach();
      standalone.delete(stream.streamId);
      // Ends the connection if it is still open (DELETE) and lets the store forget the stream.
      void stream.finish().catch(() => {});
    };
    standalone.set(stream.streamId, { sessionId: session.id, retire });
    reply.raw.on('close', () => {
      timer = setTimeout(retire, STANDALONE_GRACE_MS);
      timer.unref();
    });
    return reply;
  });

  app.delete(path, async (req, reply) => {
    const session = await sessionFor(req, reply);
    if (!session) return reply;
    try {
      for (const entry of [...standalone.values()]) if (entry.sessionId === session.id) entry.retire();
      await server.sessions.delete(session.id);
      server.telemetry.sessionEnded(session.id);
    } catch (err) {
      return sendStoreError(reply, err);
    }
    return reply.code(200).send();
  });

  app.route({
    // With CORS on, OPTIONS is the preflight (answered by @fastify/cors), not a wrong method.
    method: settings.MCP_CORS_ORIGINS.length > 0 ? ['PUT', 'PATCH'] : ['PUT', 'PATCH', 'OPTIONS'],
    url: path,
    handler: async (_req, reply) => {
      return sendError(reply, Refusal.methodNotAllowed());
    },
  });
}
