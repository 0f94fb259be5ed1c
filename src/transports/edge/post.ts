/**
 * POST on the MCP endpoint (MCP 2025-11-25 "Streamable HTTP", "Sending Messages to the
 * Server"; the 2026 stateless wire on the same endpoint, routed per request): the body goes
 * to the dispatcher, and the reply comes back as JSON, or as an SSE stream once a message tied
 * to the request (progress, a server-to-client request) must go out before the result.
 */

import type { ProtocolError } from '../../base/errors.ts';
import { encodeMessage, isObject, type JsonRpcMessage, type RequestId } from '../../base/jsonrpc.ts';
import { Refusal } from '../../base/refusals.ts';
import { ClientPresence, type Exchange, type Reply, type ReplyThen } from '../../protocol/exchange.ts';
import type { OutboundChannel } from '../../protocol/hub/channel.ts';
import { type Session, sessionOwner, transientSession } from '../../protocol/session/store.ts';
import { classifyWire } from '../../protocol/wires/classify.ts';
import type { WireProfile } from '../../protocol/wires/profile.ts';
import type { EdgeRequest, Gone } from './host.ts';
import type { InFlightEntry } from './in-flight.ts';
import { JSON_HEADERS, refuse } from './refuse.ts';
import { requestInfo } from './request-info.ts';
import { acceptsType, type RouteState, sessionFor, streamHeaders } from './route-state.ts';
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

/**
 * A POST's channel: stays JSON until the first related message, then becomes an SSE stream
 * (opened with what it was made with; no closure per request).
 */
class PostChannel implements OutboundChannel, Gone {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  stream: SseStream | undefined = undefined;
  /** Whether the POST's client is still there (its requests are aborted when it leaves). */
  readonly presence = new ClientPresence();
  /** Undefined: the client accepts JSON only, related messages cannot be delivered. */
  private readonly _state: RouteState | undefined;
  private readonly _res: unknown;
  private readonly _session: Session | undefined;
  /** The session id the stream's headers name (none for a session made for the request alone). */
  private readonly _sessionHeader: string | undefined;
  /** The id of the request the stream answers (a request's POST). */
  private readonly _answers: RequestId | undefined;
  private readonly _resumable: boolean;
  constructor(
    state: RouteState | undefined,
    res: unknown,
    session: Session | undefined,
    sessionHeader: string | undefined,
    answers: RequestId | undefined,
    resumable: boolean,
  ) {
    this._state = state;
    this._res = res;
    this._session = session;
    this._sessionHeader = sessionHeader;
    this._answers = answers;
    this._resumable = resumable;
  }
  /** The client's connection closed: a resumable stream outlives it, anything else is abandoned. */
  clientGone(): void {
    if (!(this._resumable && this.stream)) this.presence.leave();
  }
  send(message: JsonRpcMessage): void {
    if (!this._state) return;
    this.stream ??= this._open(this._state);
    this.stream.send(message);
  }
  async disconnect(): Promise<void> {
    // Only a resumable stream (2025 wire, 2025-11-25+) may be closed early: elsewhere the
    // client could not reconnect and the result would be lost.
    if (!this._state || !this._resumable) return;
    this.stream ??= this._open(this._state);
    await this.stream.disconnect();
  }
  private _open(state: RouteState): SseStream {
    const { options, deps, host } = state;
    const session = this._session;
    const resumable = this._resumable;
    const streamId = newStreamId(session?.id);
    const stream = new SseStream(host.stream(this._res, streamHeaders(this._sessionHeader)), {
      streamId,
      store: resumable ? state.store : undefined,
      keepAliveMs: options.sse.keepAliveMs,
      primeRetryMs: resumable ? options.sse.retryMs : undefined,
      logger: deps.logger,
      answers: resumable ? this._answers : undefined,
    });
    if (resumable && session) state.live.set(streamId, { stream, sessionId: session.id });
    return stream;
  }
}

/** Settled at once: what a POST answered without waiting resolves to. */
const ANSWERED: Promise<void> = Promise.resolve();

/**
 * Answers a POST whose body has been parsed (`req.body`) and charged to the rate limit;
 * resolves to nothing once answered (not to `res`: Fastify's reply is a thenable, which a
 * promise resolved with it would call for one more turn). Not `async`: every POST passes here,
 * and the dispatcher's promise gets one reaction instead of an async layer's promise and
 * turns (docs/performance.md). Whatever throws still rejects.
 */
export function handlePost(
  state: RouteState,
  req: EdgeRequest,
  res: unknown,
  failed?: Failed,
): Promise<void> {
  try {
    const body = req.body;
    if (body === undefined) return refused(state, req, res, Refusal.unsupportedMediaType(), null);
    const single = !Array.isArray(body) && isObject(body) ? body : undefined;
    const isRequest = single !== undefined && typeof single.method === 'string' && 'id' in single;
    // Only a request's id is echoed: an error about a posted response or notification has
    // none (2025-11-25 transports, "Sending Messages to the Server").
    const firstId = isRequest ? single?.id : null;
    const headers = req.headers;
    const sseOk = acceptsType(headers, 'text/event-stream');
    if (!sseOk && !acceptsType(headers, 'application/json')) {
      return refused(state, req, res, Refusal.notAcceptable(), firstId);
    }
    // The message's wire profile, chosen here once and handed to the dispatcher: a message, a
    // batch or a posted response under a 2026 MCP-Protocol-Version header is on the 2026 wire
    // (a batch there is -32600, a notification 202: fixture contract §1 and §3).
    const profile = classifyWire(body, headers);
    // A listen stream is nothing but SSE: held open on a JSON-only client it could never
    // deliver anything, so it is refused at once.
    if (!profile.sessions && single?.method === 'subscriptions/listen' && !sseOk) {
      return refused(state, req, res, Refusal.listenNeedsEventStream(), firstId);
    }
    // The id a stream opened for the reply answers: a request's.
    const answers = isRequest ? (single?.id as RequestId) : undefined;
    const initialize = isRequest && single?.method === 'initialize';
    const stateless = state.sessions === 'stateless';
    if (profile.sessions && !initialize) {
      const refusal = profile.versionHeaderRefusal(headers);
      if (refusal) return refused(state, req, res, refusal, firstId);
      if (stateless) {
        const session = requestSession(req, profile, false);
        return dispatch(state, req, res, body, profile, sseOk, answers, session, failed);
      }
      const dispatched = sessionFor(state, req, res, firstId).then((session) =>
        session ? dispatch(state, req, res, body, profile, sseOk, answers, session, failed) : undefined,
      );
      return failed ? dispatched.then(undefined, (err: unknown) => failed(res, err)) : dispatched;
    }
    const session = profile.sessions && stateless ? requestSession(req, profile, true) : undefined;
    return dispatch(state, req, res, body, profile, sseOk, answers, session, failed);
  } catch (err) {
    if (!failed) return Promise.reject(err);
    failed(res, err);
    return ANSWERED;
  }
}

/**
 * Where a POST's failure goes when the host takes it so (`Edge.answer`): the POST's promise then
 * never rejects, and the host chains no reaction of its own on it.
 */
export type Failed = (res: unknown, err: unknown) => void;

function refused(state: RouteState, req: EdgeRequest, res: unknown, err: ProtocolError, id: unknown) {
  refuse(state, req, res, err, id);
  return ANSWERED;
}

/** The POST handed to the dispatcher under `session`, and its reply rendered. */
function dispatch(
  state: RouteState,
  req: EdgeRequest,
  res: unknown,
  body: unknown,
  profile: WireProfile,
  sseOk: boolean,
  answers: RequestId | undefined,
  session: Session | undefined,
  failed: Failed | undefined,
): Promise<void> {
  const { deps, options, host } = state;
  const stateless = state.sessions === 'stateless';
  // A session made for this request alone is never resumed, nor named to the client.
  const resumable = !stateless && session !== undefined && profile.resumable(session);
  const sessionHeader = stateless ? undefined : session?.id;
  const channel = new PostChannel(sseOk ? state : undefined, res, session, sessionHeader, answers, resumable);
  const presence = channel.presence;
  host.onGone(res, channel);
  const headers = req.headers;
  const exchange: Exchange = {
    transport: 'http',
    profile,
    headers,
    session,
    channel,
    presence,
    identity: req.mcpIdentity,
    address: host.address(req),
    http: requestInfo(req.method, req.url, headers, options.trustProxy),
    port: host.port(req),
    httpVersion: host.httpVersion(req),
  };
  req.mcpDispatched = true;
  const then = new PostThen(
    state,
    res,
    channel,
    state.dispatching.add(presence),
    stateless,
    sessionHeader,
    failed,
  );
  try {
    // The reply is rendered in the request's own reaction (PostThen): no promise of ours between.
    // (Resolved with a stream's end, a promise settles with it.)
    return deps.dispatcher.handle(body, exchange, then) as Promise<unknown> as Promise<void>;
  } catch (err) {
    return Promise.reject(err).then(undefined, (thrown: unknown) => then.failed(thrown));
  }
}

/** What follows the dispatcher's reply to a POST: the bookkeeping undone, the reply rendered. */
class PostThen implements ReplyThen<Promise<void> | undefined> {
  // Made per request: fields `private`, not `#private` (V8 defines each `#` field through a
  // keyed store call on every construction: docs/performance.md).
  private readonly _state: RouteState;
  private readonly _res: unknown;
  private readonly _channel: PostChannel;
  private readonly _inFlight: InFlightEntry;
  private readonly _stateless: boolean;
  private readonly _sessionHeader: string | undefined;
  private readonly _failed: Failed | undefined;
  constructor(
    state: RouteState,
    res: unknown,
    channel: PostChannel,
    inFlight: InFlightEntry,
    stateless: boolean,
    sessionHeader: string | undefined,
    failed: Failed | undefined,
  ) {
    this._state = state;
    this._res = res;
    this._channel = channel;
    this._inFlight = inFlight;
    this._stateless = stateless;
    this._sessionHeader = sessionHeader;
    this._failed = failed;
  }
  done(result: Reply): Promise<void> | undefined {
    this._settled();
    const { _state: state, _res: res, _failed: failed } = this;
    if (!failed) return render(state, res, this._channel, result, this._stateless, this._sessionHeader);
    try {
      const streamed = render(state, res, this._channel, result, this._stateless, this._sessionHeader);
      return streamed?.then(undefined, (err: unknown) => failed(res, err));
    } catch (err) {
      failed(res, err);
      return undefined;
    }
  }
  failed(err: unknown): undefined {
    this._settled();
    if (!this._failed) throw err;
    this._failed(this._res, err);
    return undefined;
  }
  private _settled(): void {
    this._state.dispatching.remove(this._inFlight);
    this._state.host.offGone(this._res, this._channel);
  }
}

/** Sends the dispatcher's reply: as the end of the stream the request opened, else as JSON (or 202). */
function render(
  state: RouteState,
  res: unknown,
  channel: PostChannel,
  result: Reply,
  stateless: boolean,
  sessionId: string | undefined,
): Promise<void> | undefined {
  const { deps, host } = state;
  // An initialize names the session it made (never where none are kept).
  const sessionHeader = result.session && !stateless ? result.session.id : sessionId;
  if (channel.stream) return finishStream(state, channel.stream, result);
  if (result.body === undefined) {
    host.send(res, 202, undefined, undefined);
    return undefined;
  }
  const text = encodeMessage(result.body, state.encodeFailed);
  if (text === undefined) {
    host.send(res, 202, undefined, undefined);
    return undefined;
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
  return undefined;
}

/** Ends the stream a POST's related messages opened with its reply(s), once stored. */
async function finishStream(state: RouteState, stream: SseStream, result: Reply): Promise<void> {
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
  state.live.delete(stream.streamId);
}
