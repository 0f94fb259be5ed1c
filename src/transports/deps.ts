/**
 * What the transports take from the server, and nothing more: the transport seam. Each
 * transport declares the parts it uses (the dispatcher, the hub, the session store, a
 * logger, telemetry, and for HTTP the edge's authenticator and limiter, the readiness checks
 * and the description the discovery documents render); the server assembly (src/assembly/server.ts)
 * provides them, and a test may hand over any object that has them. No transport sees the
 * registry or the plugins.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/types.ts';
import type { PluginHttpRoute } from '../base/http-route.ts';
import type { JsonRpcMessage, RequestId } from '../base/jsonrpc.ts';
import type { ServerDescription } from '../discovery/server-description.ts';
import type { Exchange, Reply, ReplyThen } from '../protocol/exchange.ts';
import type { ClientRequests } from '../protocol/hub/client-requests.ts';
import type { SessionStreams } from '../protocol/hub/session-streams.ts';
import type { SessionStore } from '../protocol/session/store.ts';
import type { RateLimiter } from '../ratelimit/limiter.ts';
import type { Telemetry } from '../telemetry/tracing.ts';

/** The dispatcher as a transport sees it: one parsed message or batch in, the reply out. */
export interface MessageHandler {
  handle(value: unknown, exchange: Exchange): Promise<Reply>;
  /** With `then`: the reply handed to it in the request's own reaction (ReplyThen). */
  handle<R>(value: unknown, exchange: Exchange, then: ReplyThen<R>): Promise<R>;
  /**
   * Deepest nesting a message may have (MCP_MAX_JSON_DEPTH): a transport that walks a body as
   * it parses it measures it too, so the dispatcher does not walk it again. Undefined: not said.
   */
  readonly maxJsonDepth?: number;
}

/** What a message-stream connection (stdio, the test kit in-process) uses. */
export interface ConnectionDeps {
  readonly dispatcher: MessageHandler;
  /** The connection's session stream, and its waiting server-to-client requests failed at the end. */
  readonly hub: { readonly sessionStreams: SessionStreams; readonly clientRequests: ClientRequests };
  readonly logger: Logger;
  /** A 2025-wire session ended (telemetry's session duration, the plugins' onSessionEnd hooks). */
  sessionEnded(sessionId: string): void;
}

/** One readiness check's answer, as /readyz shows it. */
export interface CheckResult {
  readonly ok: boolean;
  readonly detail?: string;
}

/** One event of a resumable SSE stream, as an `EventStore` keeps it. */
export interface StoredEvent {
  id: string;
  message: JsonRpcMessage | undefined;
}

/** What a writer tells a shared store about an event, besides the event. */
export interface AppendMeta {
  /**
   * The request the stream answers (a POST's reply stream), so that a shared store can answer
   * it when the replica writing the stream stops before the end.
   */
  readonly answers?: RequestId;
  /**
   * The event's place in its stream (1, 2, ...): a store that may have taken an append whose
   * reply was lost (a timeout) keeps it once when the same event is appended again.
   */
  readonly seq?: number;
}

/**
 * The port behind SSE resumability (the HTTP transport's): every event written to a resumable
 * stream is stored with an id, so a client reconnecting with `Last-Event-ID` receives the rest
 * of that stream. In memory in src/transports/edge/event-store.ts; shared by replicas in Redis
 * Streams (src/transports/edge/redis-event-store.ts).
 */
export interface EventStore {
  /** Stores an event (undefined message: a priming event) and returns its id. */
  append(streamId: string, message: JsonRpcMessage | undefined, meta?: AppendMeta): Promise<string>;
  /** The stream an event id belongs to, when that stream is known. */
  streamOf(eventId: string): Promise<string | undefined>;
  /** Events of the stream after `eventId`, oldest first. */
  after(eventId: string): Promise<StoredEvent[]>;
  /** Forgets a finished stream (after a grace period for late reconnects). */
  release(streamId: string): Promise<void>;
  /**
   * Shared stores only (src/scale/), where a stream may be live on another replica: passes
   * the events after `eventId` to `onEvent`, then each later one as it is stored, until the
   * stream is released or `signal` aborts. When the replica writing the stream has stopped
   * before releasing it, the stream ends with a JSON-RPC error for the request it answers
   * (lost, may be retried), unless it holds that request's answer already. Absent in memory:
   * a stream not live in this process has finished, and `after` has all of it.
   */
  follow?(eventId: string, onEvent: (event: StoredEvent) => void, signal: AbortSignal): Promise<void>;
}

/**
 * Our own authorisation server (`MCP_AUTH=oauth-proxy`, src/auth/oauth-proxy/), served beside
 * the MCP endpoint: a Node request handler for its paths (its metadata, endpoints and pages).
 */
export interface AuthorizationServerRoutes {
  /** Exact paths, and prefixes ending in `/*`. */
  readonly paths: readonly string[];
  /** Answers one request on those paths; the body is unread. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** What the HTTP transport uses (src/transports/http/). */
export interface HttpDeps {
  readonly dispatcher: MessageHandler & {
    /** Requests being handled now (graceful shutdown waits for 0). */
    readonly inflightCount: number;
  };
  /** The standalone GET streams of 2025-wire sessions. */
  readonly hub: { readonly sessionStreams: SessionStreams };
  readonly sessions: SessionStore;
  readonly logger: Logger;
  /** A 2025-wire session ended (telemetry's session duration, the plugins' onSessionEnd hooks). */
  sessionEnded(sessionId: string): void;
  readonly telemetry: Pick<Telemetry, 'recordRefusal' | 'countRefusal'> &
    Partial<Pick<Telemetry, 'startRouteSpan'>>;
  /** Verifies callers at the edge; undefined with MCP_AUTH=none. */
  readonly auth: Authenticator | undefined;
  /** Per-client limits at the edge; undefined: none. */
  readonly limiter: RateLimiter | undefined;
  /** The SSE event store shared with other replicas (Redis); undefined: one in memory. */
  readonly eventStore: EventStore | undefined;
  /** The plugins' own HTTP routes (`app.httpRoute`), served beside the MCP endpoint; undefined: none. */
  readonly routes?: readonly PluginHttpRoute[];
  /** Route handlers running now (graceful shutdown waits for 0, as for the dispatcher's calls); undefined: none. */
  readonly routeInflightCount?: number;
  /** Our authorisation server (MCP_AUTH=oauth-proxy), mounted beside the MCP endpoint; undefined: none. */
  readonly authorizationServer?: AuthorizationServerRoutes;
  /** The checks /readyz reports (besides shutdown), by name; wired where the server is assembled. */
  readiness(): Promise<Record<string, CheckResult>>;
  /** Every scope a tool requires, for the protected resource metadata's `scopes_supported`. */
  toolScopes(): readonly string[];
  /** The server as the card, the catalogs and the landing page show it, at `baseUrl`. */
  describe(baseUrl: string): ServerDescription;
}

/**
 * What the HTTP edge uses (src/transports/edge/), whichever host serves it: the dispatcher, the
 * 2025 wire's sessions, their standalone streams and the event store behind resumption, the
 * edge's authenticator and limiter, a logger and telemetry.
 */
export type EdgeDeps = Pick<
  HttpDeps,
  | 'dispatcher'
  | 'hub'
  | 'sessions'
  | 'logger'
  | 'sessionEnded'
  | 'telemetry'
  | 'auth'
  | 'limiter'
  | 'eventStore'
>;

/** What the fetch handler uses (src/transports/fetch/): the edge, and the plugins' routes, served on their paths. */
export type FetchDeps = EdgeDeps & Pick<HttpDeps, 'routes' | 'routeInflightCount'>;
