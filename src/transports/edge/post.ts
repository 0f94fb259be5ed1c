/**
 * POST on the MCP endpoint (MCP 2025-11-25 "Streamable HTTP", "Sending Messages to the
 * Server"; the 2026 stateless wire on the same endpoint, routed per request): the body goes
 * to the dispatcher, and the reply comes back as JSON, or as an SSE stream once a message tied
 * to the request (progress, a server-to-client request) must go out before the result.
 */

import { encodeMessage, isObject, type JsonRpcMessage, type RequestId } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { ClientPresence, type Exchange, type Reply } from '../../protocol/exchange.ts';
import type { OutboundChannel } from '../../protocol/hub/channel.ts';
import { type Session, sessionOwner, transientSession } from '../../protocol/session/store.ts';
import { classifyWire } from '../../protocol/wires/classify.ts';
import type { WireProfile } from '../../protocol/wires/profile.ts';
import type { EdgeRequest } from './host.ts';
import { JSON_HEADERS, refuse } from './refuse.ts';
import { requestInfo } from './request-info.ts';
import { accepts, type RouteState, sessionFor, streamHeaders } from './route-state.ts';
import { isDispatchedRefusal, statusReason } from './rules.ts';
import { SseStream } from './sse.ts';
import { newStreamId } from './stream-ids.ts';

/**
 * The session of one request where none is kept (`sessions: 'stateless'`): initialised at the
 * version the MCP-Protocol-Version header names (as the wire of `profile` reads it), with no
 * client capabilities known, bound to the caller; never stored. An `initialize` gets one to
 * fill in (and no session id back).
 */
function requestSession(req: EdgeRequest, profile: WireProfile, initialize: boolean): Session {
  const session = transientSession();
  if (!initialize) {
    session.protocolVersion = profile.headerVersion(req.headers);
    session.initialized = true;
    session.owner = sessionOwner(req.mcpIdentity);
  }
  return session;
}

/** A POST's channel: stays JSON until the first related message, then becomes an SSE stream. */
class PostChannel implements OutboundChannel {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  stream: SseStream | undefined;
  private readonly _open: (() => SseStream) | undefined;
  private readonly _resumable: boolean;
  constructor(open: (() => SseStream) | undefined, resumable: boolean) {
    this._open = open;
    this._resumable = resumable;
  }
  send(message: JsonRpcMessage): void {
    if (!this._open) return; // the client accepts JSON only: related messages cannot be delivered
    this.stream ??= this._open();
    this.stream.send(message);
  }
  async disconnect(): Promise<void> {
    // Only a resumable stream (2025 wire, 2025-11-25+) may be closed early: elsewhere the
    // client could not reconnect and the result would be lost.
    if (!this._open || !this._resumable) return;
    this.stream ??= this._open();
    await this.stream.disconnect();
  }
}

/**
 * Answers a POST whose body has been parsed (`req.body`) and charged to the rate limit;
 * resolves to nothing once answered (not to `res`: Fastify's reply is a thenable, which a
 * promise resolved with it would call for one more turn).
 */
export async function handlePost(state: RouteState, req: EdgeRequest, res: unknown): Promise<void> {
  const { deps, options, store, live, host } = state;
  const body = req.body;
  if (body === undefined) return void refuse(state, req, res, Refusal.unsupportedMediaType(), null);
  const single = !Array.isArray(body) && isObject(body) ? body : undefined;
  const isRequest = single !== undefined && typeof single.method === 'string' && 'id' in single;
  // Only a request's id is echoed: an error about a posted response or notification has
  // none (2025-11-25 transports, "Sending Messages to the Server").
  const firstId = isRequest ? single?.id : null;
  const sseOk = accepts(req, 'text/event-stream');
  if (!sseOk && !accepts(req, 'application/json')) {
    return void refuse(state, req, res, Refusal.notAcceptable(), firstId);
  }
  // The message's wire profile, chosen here once and handed to the dispatcher: a message, a
  // batch or a posted response under a 2026 MCP-Protocol-Version header is on the 2026 wire
  // (a batch there is -32600, a notification 202: fixture contract §1 and §3).
  const profile = classifyWire(body, req.headers);
  // A listen stream is nothing but SSE: held open on a JSON-only client it could never
  // deliver anything, so it is refused at once.
  if (!profile.sessions && single?.method === 'subscriptions/listen' && !sseOk) {
    return void refuse(state, req, res, Refusal.listenNeedsEventStream(), firstId);
  }

  let session: Session | undefined;
  const initialize = isRequest && single?.method === 'initialize';
  const stateless = state.sessions === 'stateless';
  if (profile.sessions && !initialize) {
    const refusal = profile.versionHeaderRefusal(req.headers);
    if (refusal) return void refuse(state, req, res, refusal, firstId);
    session = stateless ? requestSession(req, profile, false) : await sessionFor(state, req, res, firstId);
    if (!session) return;
  } else if (profile.sessions && stateless) session = requestSession(req, profile, true);

  // A session made for this request alone is never resumed, nor named to the client.
  const resumable = !stateless && session !== undefined && profile.resumable(session);
  let sessionHeader = stateless ? undefined : session?.id;
  const channel = new PostChannel(
    sseOk
      ? () => {
          const streamId = newStreamId(session?.id);
          const stream = new SseStream(host.stream(res, streamHeaders(sessionHeader)), {
            streamId,
            store: resumable ? store : undefined,
            keepAliveMs: options.sse.keepAliveMs,
            primeRetryMs: resumable ? options.sse.retryMs : undefined,
            logger: deps.logger,
            answers: resumable && isRequest ? (single?.id as RequestId) : undefined,
          });
          if (resumable && session) live.set(streamId, { stream, sessionId: session.id });
          return stream;
        }
      : undefined,
    resumable,
  );
  const presence = new ClientPresence();
  host.onGone(res, () => {
    // A resumable stream outlives its connection; anything else is abandoned with it.
    if (!(resumable && channel.stream)) presence.leave();
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
    http: requestInfo(req.method, req.url, req.headers, options.trustProxy),
    port: host.port(req),
    httpVersion: host.httpVersion(req),
  };
  req.mcpDispatched = true;
  state.dispatching.add(presence);
  let result: Reply;
  try {
    result = await deps.dispatcher.handle(body, exchange);
  } finally {
    state.dispatching.delete(presence);
  }
  if (result.session && !stateless) sessionHeader = result.session.id;

  if (channel.stream) {
    const stream = channel.stream;
    // A batch's replies go out one event each (2025-03-26 transports: the stream carries one
    // response per request in the POST), then the stream ends.
    if (Array.isArray(result.body)) for (const response of result.body) stream.send(response);
    // The handler is done, but the answer is not kept until its event is stored: a drain waits
    // for this too, or a replica stopping now would lose the result a resume elsewhere asks for.
    const finished = stream.finish(Array.isArray(result.body) ? undefined : result.body);
    state.finishing.add(finished);
    try {
      await finished;
    } finally {
      state.finishing.delete(finished);
    }
    live.delete(stream.streamId);
    return;
  }
  if (result.body === undefined) {
    host.send(res, 202, undefined, undefined);
    return;
  }
  const text = encodeMessage(result.body, state.encodeFailed);
  if (text === undefined) {
    host.send(res, 202, undefined, undefined);
    return;
  }
  const status = result.status ?? 200;
  if (isDispatchedRefusal(status)) deps.telemetry.countRefusal(status, statusReason(status) ?? 'refused');
  let headers = JSON_HEADERS;
  const named = sessionHeader !== undefined && result.session !== undefined;
  if (result.headers || named) {
    const extra: Record<string, string> = { ...result.headers, ...JSON_HEADERS };
    if (named) extra['mcp-session-id'] = sessionHeader as string;
    headers = extra;
  }
  host.send(res, status, headers, text);
}
