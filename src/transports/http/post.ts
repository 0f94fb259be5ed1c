/**
 * POST on the MCP endpoint (MCP 2025-11-25 "Streamable HTTP", "Sending Messages to the
 * Server"; the 2026 stateless wire on the same endpoint, routed per request): the body goes
 * to the dispatcher, and the reply comes back as JSON, or as an SSE stream once a message tied
 * to the request (progress, a server-to-client request) must go out before the result.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { encodeMessage, isObject, type JsonRpcMessage, logEncodeFailure } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { ClientPresence, type Exchange } from '../../protocol/exchange.ts';
import type { OutboundChannel } from '../../protocol/hub/channel.ts';
import type { Session } from '../../protocol/session.ts';
import { classifyWire, REV2025 } from '../../protocol/wires/classify.ts';
import { refuse } from './refuse.ts';
import { requestInfo } from './request-info.ts';
import { accepts, hijackStream, type RouteState, sessionFor, streamHeaders } from './route-state.ts';
import { SseStream } from './sse.ts';

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

export function installPost(app: FastifyInstance, state: RouteState): void {
  const { deps, options, store, live } = state;
  const encodeFailed = logEncodeFailure(deps.logger);
  const trustProxy = options.trustProxy !== false;

  app.post(options.path, async (req, reply) => {
    const body = req.body;
    if (body === undefined) return refuse(deps, req, reply, Refusal.unsupportedMediaType(), null);
    const single = !Array.isArray(body) && isObject(body) ? body : undefined;
    const isRequest = single !== undefined && typeof single.method === 'string' && 'id' in single;
    // The request's wire profile, chosen here once and handed to the dispatcher. A posted
    // response, notification or batch answers a 2025 session, whatever its headers say.
    const profile = isRequest ? classifyWire(single, req.headers) : REV2025;
    // Only a request's id is echoed: an error about a posted response or notification has
    // none (2025-11-25 transports, "Sending Messages to the Server").
    const firstId = isRequest ? single?.id : null;
    if (!accepts(req, 'application/json') && !accepts(req, 'text/event-stream')) {
      return refuse(deps, req, reply, Refusal.notAcceptable(), firstId);
    }
    // A listen stream is nothing but SSE: held open on a JSON-only client it could never
    // deliver anything, so it is refused at once.
    if (
      !profile.sessions &&
      single?.method === 'subscriptions/listen' &&
      !accepts(req, 'text/event-stream')
    ) {
      return refuse(deps, req, reply, Refusal.listenNeedsEventStream(), firstId);
    }

    let session: Session | undefined;
    if (profile.sessions && !(isRequest && single?.method === 'initialize')) {
      const refusal = profile.versionHeaderRefusal(req.headers);
      if (refusal) return refuse(deps, req, reply, refusal, firstId);
      session = await sessionFor(state, req, reply, firstId);
      if (!session) return reply;
    }

    const sseOk = accepts(req, 'text/event-stream');
    const resumable = session !== undefined && profile.resumable(session);
    let sessionHeader = session?.id;
    const channel = new PostChannel(
      sseOk
        ? () => {
            hijackStream(state, reply);
            const streamId = randomUUID();
            const stream = new SseStream(reply.raw, {
              streamId,
              store: resumable ? store : undefined,
              keepAliveMs: options.sse.keepAliveMs,
              primeRetryMs: resumable ? options.sse.retryMs : undefined,
              headers: streamHeaders(sessionHeader),
              logger: deps.logger,
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
      profile,
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
    const result = await deps.dispatcher.handle(body, exchange);
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
}
